#include <sys/stat.h>
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

TEST_CASE("read_regular_file refuses a device and a FIFO at once and a file over its limit") {
  using loopdoctor::base::read_regular_file;
  std::string out = "untouched", error;
  CHECK_FALSE(read_regular_file("/dev/zero", 1 << 20, &out, &error));  // would never end
  CHECK(error == "cannot read '/dev/zero': not a regular file");
  const std::string fifo = "/tmp/loopdoctor-fifo-test-" + std::to_string(::getpid());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_FALSE(read_regular_file(fifo, 1 << 20, &out, &error));  // would wait for a writer
  CHECK(error == "cannot read '" + fifo + "': not a regular file");
  std::remove(fifo.c_str());
  const std::string path = "/tmp/loopdoctor-big-test-" + std::to_string(::getpid());
  std::ofstream(path, std::ios::binary) << std::string(3 << 20, 'x');
  CHECK_FALSE(read_regular_file(path, 2 << 20, &out, &error));
  CHECK(error == "cannot read '" + path + "': 3 MB, over the 2 MB limit");
  CHECK(out == "untouched");
  REQUIRE(read_regular_file(path, 4 << 20, &out));
  CHECK(out.size() == (3u << 20));
  std::remove(path.c_str());
}
