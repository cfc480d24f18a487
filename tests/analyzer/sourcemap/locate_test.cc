// Finding a script's map: URLs to paths, the sourceMappingURL comment, data: URLs.
#include <catch2/catch.hpp>

#include "analyzer/attribution/sourcemap/locate.h"

using namespace loopdoctor::sourcemap;

TEST_CASE("Script URLs name files; other schemes name none") {
  CHECK(path_of_url("file:///srv/app/dist/x.js") == "/srv/app/dist/x.js");
  CHECK(path_of_url("file:///srv/my%20app/x.js") == "/srv/my app/x.js");
  CHECK(path_of_url("file://localhost/srv/x.js") == "/srv/x.js");
  CHECK(path_of_url("/srv/app/x.js") == "/srv/app/x.js");
  CHECK(path_of_url("../src/a.ts") == "../src/a.ts");
  CHECK(path_of_url("node:internal/fs") == "");
  CHECK(path_of_url("webpack://app/./src/a.js") == "");
  CHECK(path_of_url("") == "");
}

TEST_CASE("The last sourceMappingURL comment wins") {
  CHECK(source_mapping_url("a();\n//# sourceMappingURL=a.js.map\n") == std::optional<std::string>("a.js.map"));
  CHECK(source_mapping_url("//# sourceMappingURL=old.map\nb();\n//@ sourceMappingURL=new.map") ==
        std::optional<std::string>("new.map"));
  CHECK(source_mapping_url("let s = 'sourceMappingURL=x';\n//# sourceMappingURL=real.map\n") ==
        std::optional<std::string>("real.map"));
  CHECK_FALSE(source_mapping_url("let s = 'sourceMappingURL=x';\n"));
  CHECK_FALSE(source_mapping_url("//# sourceMappingURL=\n"));
}

TEST_CASE("data: URLs decode from base64 or percent-encoding") {
  std::string error;
  // {"a":1}
  CHECK(decode_data_url("data:application/json;base64,eyJhIjoxfQ==", &error) ==
        std::optional<std::string>(R"({"a":1})"));
  CHECK(decode_data_url("data:application/json;charset=utf-8;base64,eyJhIjoxfQ", &error) ==
        std::optional<std::string>(R"({"a":1})"));
  CHECK(decode_data_url("data:application/json,%7B%22a%22%3A1%7D", &error) ==
        std::optional<std::string>(R"({"a":1})"));
  CHECK_FALSE(decode_data_url("data:application/json;base64,eyJh@@", &error));
  CHECK(error == "the inline source map's base64 is corrupt");
  CHECK_FALSE(decode_data_url("data:nocomma", &error));
  CHECK(error == "not a data: URL");
}
