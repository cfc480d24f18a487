#include "analyzer/attribution/sourcemap/packages.h"

#include <nlohmann/json.hpp>

#include "base/file.h"

namespace loopdoctor::sourcemap {
namespace {

constexpr std::string_view kNodeModules = "/node_modules/";

std::string parent_of(const std::string& dir) {
  const auto slash = dir.find_last_of('/');
  return slash == std::string::npos || slash == 0 ? "" : dir.substr(0, slash);
}

}  // namespace

std::string package_label(const Package& p) {
  return p.version.empty() ? p.name : p.name + " " + p.version;
}

std::string_view package_name_in(std::string_view location) {
  const auto space = location.find(' ');
  if (space == std::string_view::npos || space == 0) return {};
  const std::string_view name = location.substr(0, space);
  // npm names: lower-case URL-safe characters, with one '/' after an @scope.
  for (const char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~' ||
          c == '@' || c == '/'))
      return {};
  return name;
}

std::optional<Package> parse_package_json(const std::string& text, const std::string& dir) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  const auto name = j.find("name");
  if (name == j.end() || !name->is_string() || name->get<std::string>().empty()) return std::nullopt;
  Package p{name->get<std::string>(), "", dir};
  if (const auto v = j.find("version"); v != j.end() && v->is_string()) p.version = v->get<std::string>();
  return p;
}

const Package* Packages::of(const std::string& path) {
  const auto nm = path.rfind(kNodeModules);
  if (path.empty() || path[0] != '/' || nm == std::string::npos) return nullptr;
  return in_dir(parent_of(path), 0);
}

// The package of folder `dir`: its own package.json, else its parent's,
// never above the node_modules folder the file was found in.
const Package* Packages::in_dir(const std::string& dir, int depth) {
  if (dir.empty() || depth > kMaxPackageDepth || dir.ends_with("/node_modules")) return nullptr;
  if (auto it = by_dir_.find(dir); it != by_dir_.end()) return it->second ? &*it->second : nullptr;
  std::optional<Package> found;
  // A manifest is a few KB; a path from a recording may name anything.
  constexpr std::size_t kMaxManifestBytes = 4u << 20;
  if (std::string text; base::read_regular_file(dir + "/package.json", kMaxManifestBytes, &text))
    found = parse_package_json(text, dir);
  if (!found)
    if (const Package* up = in_dir(parent_of(dir), depth + 1)) found = *up;
  auto& slot = by_dir_[dir];
  slot = std::move(found);
  return slot ? &*slot : nullptr;
}

}  // namespace loopdoctor::sourcemap
