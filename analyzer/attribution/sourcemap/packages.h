// Which npm package a file belongs to: the nearest package.json above it
// that names a package, read once per directory. Frames in node_modules are
// shown by package and version ("express 4.22.3 lib/response.js:250"): the
// base name alone ("response.js:250") does not say whose code it is.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace loopdoctor::sourcemap {

struct Package {
  std::string name;     // "express", "@scope/pkg"
  std::string version;  // "4.22.3"; "" when package.json has none
  std::string dir;      // the folder holding package.json, without a trailing '/'
};

// A package.json above a file is looked for at most this many folders up:
// a file sits a few levels into its package (lib/router/index.js), never 20.
inline constexpr int kMaxPackageDepth = 20;

// `name version` as shown: "express 4.22.3", or "express" without a version.
std::string package_label(const Package& p);

// The package name a shown location starts with ("express" of "express
// 4.22.3 lib/response.js:250"), read back from the label above; "" for a
// location with no package ("server.js:14", "node:fs:441", "(native)").
// What follows the label is a path, so a location holding a space names a
// package by its first word when that word is a valid npm name.
std::string_view package_name_in(std::string_view location);

// A package.json's name and version; std::nullopt when the text is not JSON
// or names no package (a nested package.json holding only "type": "module").
std::optional<Package> parse_package_json(const std::string& text, const std::string& dir);

class Packages {
 public:
  // The package of the file at `path` (absolute) when the path runs through
  // a node_modules folder; nullptr otherwise, or when no package.json names it.
  const Package* of(const std::string& path);

 private:
  const Package* in_dir(const std::string& dir, int depth);
  std::map<std::string, std::optional<Package>> by_dir_;  // folder -> its package
};

}  // namespace loopdoctor::sourcemap
