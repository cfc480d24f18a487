// Maps positions in the scripts a run executed back to the sources the user
// wrote, through each script's source map, and reads the text of a line.
//
// The one place both the CPU-profile and the block-stack attribution call:
// give it a script URL as V8 reports it (file:///srv/app/dist/x.js, or a
// path) and a 1-based line and column. Each script is read, and its map
// found, read and decoded, once; later lookups are a binary search.
//
// Not thread-safe: one Mapper per analysis.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/attribution/sourcemap/packages.h"
#include "analyzer/attribution/sourcemap/source_map.h"

namespace loopdoctor::sourcemap {

struct Original {
  // The original source: an absolute path when it resolves to one (whether
  // or not it exists), else the map's source as written ("webpack://app/x.js").
  std::string file;
  int line = 0;    // 1-based
  int column = 0;  // 1-based
  std::string name;              // from the map's `names`; "" when it names none
  std::string source_line_text;  // that line of the original, trimmed; "" when unknown
};

// Line text shown to people is cut here: a table cell, not a minified line.
inline constexpr std::size_t kMaxLineTextChars = 120;

// A line's text as shown: surrounding whitespace removed, cut to
// kMaxLineTextChars with "…" (at a UTF-8 character boundary).
std::string shown_line(std::string_view line);

// Where to read the files a recording names: (recorded prefix, local
// directory) pairs, e.g. {"/srv/app", "/home/me/app"} for a recording made
// on a server and analysed in a checkout (`analyze --path-map`). Locations
// are still shown as recorded; only reading goes through it.
using PathMap = std::vector<std::pair<std::string, std::string>>;

class Mapper {
 public:
  explicit Mapper(PathMap path_map = {});
  ~Mapper();
  Mapper(Mapper&&) noexcept;
  Mapper& operator=(Mapper&&) noexcept;

  // The original position of (line, column) of the script at `url`.
  // column 0 means "the line": its first non-blank character is looked up.
  // std::nullopt when the script has no source map (then *why is ""), or
  // with *why naming the problem: the map cannot be read or decoded, the
  // position is past the script's line or the map's mappings, or it maps to
  // generated code with no source.
  std::optional<Original> map(const std::string& url, int line, int column, std::string* why = nullptr);

  // True when the script at `url` names a source map that decodes.
  bool has_map(const std::string& url);

  // Line `line` (1-based) of the script itself, as shown_line() gives it;
  // "" when the file cannot be read or is shorter.
  std::string line_text(const std::string& url, int line);

  // Line `line` (1-based) of the script as it is, untrimmed; std::nullopt
  // when the file cannot be read or is shorter. Valid while the Mapper lives.
  std::optional<std::string_view> script_line(const std::string& url, int line);

  // The npm packages of node_modules files, read once per folder.
  Packages& packages() { return packages_; }

  // The path to read for a recorded one: the first PathMap entry whose
  // prefix is a whole leading part of it, else the path itself.
  std::string local(const std::string& recorded) const;

  // One sentence per script whose map could not be used, in the order met:
  // "dist/x.js: its source map x.js.map cannot be read: No such file or directory".
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  struct Script;
  Script& script(const std::string& url);
  std::string original_text(Script& s, std::size_t source, int line);

  std::map<std::string, std::unique_ptr<Script>> scripts_;
  std::vector<std::string> problems_;
  Packages packages_;
  PathMap path_map_;
};

}  // namespace loopdoctor::sourcemap
