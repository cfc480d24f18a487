#include <catch2/catch.hpp>

#include "cli/target_label.h"

using loopdoctor::cli::safe_file_part;
using loopdoctor::cli::target_label;

TEST_CASE("a Node target is named by its script") {
  CHECK(target_label({"node", "server.js"}) == "server.js");
  CHECK(target_label({"/usr/local/bin/node", "--max-old-space-size=512", "dist/server.js", "--port", "3"}) ==
        "server.js");
  CHECK(target_label({"node", "-r", "dotenv/config", "--inspect", "src/app.mjs"}) == "app.mjs");
  CHECK(target_label({"node20", "api.js"}) == "api.js");
  CHECK(target_label({"tsx", "watch.ts"}) == "watch.ts");
  CHECK(target_label({"bun", "run", "index.ts"}) == "index.ts");
  CHECK(target_label({"env", "PORT=3000", "-u", "X", "node", "server.js"}) == "server.js");
}

TEST_CASE("a Node without a script is named node") {
  CHECK(target_label({"node", "-e", "require('http').createServer().listen(0)"}) == "node");
  CHECK(target_label({"node"}) == "node");
}

TEST_CASE("a package manager's run is named by the script it ran") {
  CHECK(target_label({"npm", "start"}) == "npm-start");
  CHECK(target_label({"npm", "run", "dev"}) == "npm-run-dev");
  CHECK(target_label({"npm", "--silent", "run", "serve:prod"}) == "npm-run-serve-prod");
  CHECK(target_label({"yarn", "dev"}) == "yarn-dev");
  CHECK(target_label({"npm"}) == "npm");
}

TEST_CASE("any other command is named by its program") {
  CHECK(target_label({"./scripts/start.sh", "--port", "3000"}) == "start.sh");
  CHECK(target_label({"sleep", "30"}) == "sleep");
  CHECK(target_label({}) == "target");
  CHECK(target_label({"env"}) == "target");
}

TEST_CASE("a label is a safe file name") {
  CHECK(safe_file_part("server.js") == "server.js");
  CHECK(safe_file_part("my server (copy).js") == "my-server-copy-.js");
  CHECK(safe_file_part("../../etc/passwd") == "etc-passwd");
  CHECK(safe_file_part("-rf") == "rf");
  CHECK(safe_file_part(".hidden") == "hidden");
  CHECK(safe_file_part("a\nb\x01") == "a-b");
  CHECK(safe_file_part("") == "target");
  CHECK(safe_file_part("///") == "target");
  CHECK(safe_file_part(std::string(300, 'x')).size() == loopdoctor::cli::kMaxLabelChars);
  CHECK(safe_file_part("caf\xc3\xa9.js") == "caf-.js");
}
