#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "base/file.h"

using loopdoctor::base::read_file;

TEST_CASE("read_file reads every byte, NULs and CRs included") {
  const std::string path = "/tmp/loopdoctor-file-test-" + std::to_string(::getpid());
  const std::string bytes("a\0b\r\nc", 6);
  std::ofstream(path, std::ios::binary) << bytes;
  std::string out = "old";
  REQUIRE(read_file(path, &out));
  CHECK(out == bytes);
  std::remove(path.c_str());
}

TEST_CASE("read_file names the path and the reason when it cannot read") {
  std::string out = "untouched", error;
  CHECK_FALSE(read_file("/nonexistent/loopdoctor.txt", &out, &error));
  CHECK(out == "untouched");
  CHECK(error == "cannot read '/nonexistent/loopdoctor.txt': No such file or directory");
  CHECK_FALSE(read_file("/nonexistent/loopdoctor.txt", &out));  // error is optional
}
