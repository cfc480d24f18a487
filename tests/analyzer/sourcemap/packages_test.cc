// The npm package of a node_modules file: the nearest package.json above it
// that names one, never above its node_modules folder.
#include <catch2/catch.hpp>

#include <filesystem>
#include <unistd.h>

#include <fstream>

#include "analyzer/attribution/sourcemap/packages.h"

using namespace loopdoctor::sourcemap;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

TEST_CASE("package.json gives a package's name and version") {
  const auto p = parse_package_json(R"({"name": "express", "version": "4.22.3"})", "/a/node_modules/express");
  REQUIRE(p);
  CHECK(package_label(*p) == "express 4.22.3");
  CHECK(package_label(*parse_package_json(R"({"name": "@scope/x"})", "/d")) == "@scope/x");
  CHECK_FALSE(parse_package_json(R"({"type": "module"})", "/d"));
  CHECK_FALSE(parse_package_json("{not json", "/d"));
  CHECK_FALSE(parse_package_json(R"({"name": 3})", "/d"));
}

TEST_CASE("A node_modules file belongs to the nearest package.json that names a package") {
  const fs::path root = fs::temp_directory_path() / ("loopdoctor-packages-" + std::to_string(::getpid()));
  fs::remove_all(root);
  write(root / "package.json", R"({"name": "the-app", "version": "1.0.0"})");
  write(root / "node_modules/express/package.json", R"({"name": "express", "version": "4.22.3"})");
  write(root / "node_modules/express/lib/package.json", R"({"type": "commonjs"})");
  write(root / "node_modules/@scope/util/package.json", R"({"name": "@scope/util", "version": "0.1.0"})");
  write(root / "node_modules/orphan/lib/x.js", "");
  Packages packages;
  const Package* e = packages.of((root / "node_modules/express/lib/router/index.js").string());
  REQUIRE(e);
  CHECK(package_label(*e) == "express 4.22.3");
  CHECK(e->dir == (root / "node_modules/express").string());
  const Package* s = packages.of((root / "node_modules/@scope/util/index.js").string());
  REQUIRE(s);
  CHECK(s->name == "@scope/util");
  // No package.json in the package: not the application's above node_modules.
  CHECK(packages.of((root / "node_modules/orphan/lib/x.js").string()) == nullptr);
  // The application's own files are not a package's.
  CHECK(packages.of((root / "server.js").string()) == nullptr);
  CHECK(packages.of("node:internal/crypto/pbkdf2") == nullptr);
  // Read once per folder: a later change is not seen.
  write(root / "node_modules/express/package.json", R"({"name": "express", "version": "5.0.0"})");
  CHECK(packages.of((root / "node_modules/express/lib/router/route.js").string())->version == "4.22.3");
  fs::remove_all(root);
}
