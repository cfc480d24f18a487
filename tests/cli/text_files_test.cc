#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "cli/text_files.h"

namespace fs = std::filesystem;
using loopdoctor::cli::write_output;

namespace {

struct ScratchDir {
  fs::path dir;
  ScratchDir() {
    char tmpl[] = "/tmp/ld-text-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("an output file is written whole, with its folders") {
  ScratchDir s;
  std::string error;
  REQUIRE(write_output((s.dir / "a/b/report.html").string(), "<html>", &error));
  CHECK(read(s.dir / "a/b/report.html") == "<html>");
  CHECK_FALSE(fs::exists(s.dir / "a/b/report.html.tmp"));
}

// `-o /dev/null` once replaced the machine's /dev/null with a regular file:
// a FIFO stands in for the device here (a failure must not break the host).
TEST_CASE("a FIFO or device named as the output is written in place, not replaced") {
  ScratchDir s;
  const fs::path fifo = s.dir / "out.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // so the writer's open does not wait
  REQUIRE(reader >= 0);
  std::string error;
  REQUIRE(write_output(fifo.string(), "{\"verdict\":\"healthy\"}", &error));
  char buf[64] = {};
  const ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  CHECK(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0) == "{\"verdict\":\"healthy\"}");
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));
  CHECK_FALSE(fs::exists(s.dir / "out.fifo.tmp"));
}

TEST_CASE("a symbolic link named as the output stays a link to the file it names") {
  ScratchDir s;
  { std::ofstream(s.dir / "real.json") << "old"; }
  fs::create_symlink(s.dir / "real.json", s.dir / "link.json");
  std::string error;
  REQUIRE(write_output((s.dir / "link.json").string(), "new", &error));
  CHECK(fs::is_symlink(fs::symlink_status(s.dir / "link.json")));
  CHECK(read(s.dir / "real.json") == "new");
}

TEST_CASE("a folder named as the output is an error that names it") {
  ScratchDir s;
  std::string error;
  CHECK_FALSE(write_output(s.dir.string(), "x", &error));
  CHECK(error.find("is a directory") != std::string::npos);
  CHECK(fs::is_directory(s.dir));
}
