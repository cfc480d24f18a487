#include <catch2/catch.hpp>

#include "agent/attach/node_options.h"

using namespace loopdoctor::attach;
using Strings = std::vector<std::string>;

TEST_CASE("split_nul splits cmdline and environ texts") {
  using namespace std::string_literals;
  CHECK(split_nul("node\0-e\0x\0"s) == Strings{"node", "-e", "x"});
  CHECK(split_nul("a\0\0b\0"s) == Strings{"a", "", "b"});
  CHECK(split_nul("").empty());
}

TEST_CASE("env_value finds one variable, not one it prefixes") {
  using namespace std::string_literals;
  std::string env = "NODE_OPTIONS_X=1\0PATH=/bin\0NODE_OPTIONS=--inspect-port=0 --max-old-space-size=100\0"s;
  CHECK(env_value(env, "NODE_OPTIONS") == "--inspect-port=0 --max-old-space-size=100");
  CHECK(env_value(env, "PATH") == "/bin");
  CHECK_FALSE(env_value(env, "HOME"));
}

TEST_CASE("split_node_options splits at spaces, keeping quoted spaces and escapes") {
  CHECK(split_node_options("--inspect  --require ./a.js") == Strings{"--inspect", "--require", "./a.js"});
  CHECK(split_node_options(R"(--require "/my dir/a.js" --title="a \"b\"")") ==
        Strings{"--require", "/my dir/a.js", "--title=a \"b\""});
  CHECK(split_node_options("").empty());
  CHECK(split_node_options(R"("")") == Strings{""});
}

TEST_CASE("node_own_options stops at the script, skipping options' separate values") {
  CHECK(node_own_options({"node", "--inspect-port", "0", "server.js", "--inspect"}) ==
        Strings{"--inspect-port", "0"});
  // Options after -e's code are still Node's (checked: node -e x --inspect-port=0 opened a random port).
  CHECK(node_own_options({"node", "-e", "code", "--inspect-port=0"}) == Strings{"-e", "code", "--inspect-port=0"});
  CHECK(node_own_options({"node", "--", "--inspect"}).empty());
  CHECK(node_own_options({"node", "-r", "./x.js", "app.js"}) == Strings{"-r", "./x.js"});
  CHECK(node_own_options({"node"}).empty());
  CHECK(node_own_options({}).empty());
}

TEST_CASE("find_inspect_flags names the inspector flags and the port they set") {
  auto none = find_inspect_flags({"--max-old-space-size=100"});
  CHECK_FALSE(none.disable_sigusr1);
  CHECK(none.inspect.empty());
  CHECK_FALSE(none.port);

  auto off = find_inspect_flags({"--disable-sigusr1"});
  CHECK(off.disable_sigusr1);

  CHECK(find_inspect_flags({"--inspect-port=0"}).port == 0);
  CHECK(find_inspect_flags({"--inspect-port", "9301"}).port == 9301);
  CHECK(find_inspect_flags({"--inspect=0.0.0.0:9230"}).port == 9230);
  CHECK(find_inspect_flags({"--inspect-brk=[::1]:9231"}).port == 9231);
  CHECK(find_inspect_flags({"--debug-port=9232"}).port == 9232);
  auto bare = find_inspect_flags({"--inspect"});
  CHECK(bare.inspect == Strings{"--inspect"});
  CHECK_FALSE(bare.port);
  CHECK_FALSE(find_inspect_flags({"--inspect=localhost"}).port);
  CHECK_FALSE(find_inspect_flags({"--inspect-port=99999"}).port);
  // The last wins, as in Node; publish-uid names no port.
  auto both = find_inspect_flags({"--inspect-port=9300", "--inspect=9301", "--inspect-publish-uid=stderr"});
  CHECK(both.port == 9301);
  CHECK(both.inspect.size() == 3);
}
