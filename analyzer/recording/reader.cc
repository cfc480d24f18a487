#include "analyzer/recording/recording.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace loopdoctor::recording {
namespace {

// gzread reads plain files too (transparent mode), so one path serves both
// compressed and uncompressed recordings.
struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzPtr = std::unique_ptr<gzFile_s, GzCloser>;

constexpr std::size_t kReadChunkBytes = 1 << 16;
// A longer line cannot come from the collector (it caps probe lines at 16 MiB,
// for the profile); treat it as damage rather than buffering without bound.
constexpr std::size_t kMaxLineBytes = 32u << 20;

}  // namespace

ReadResult read(const std::string& path,
                const std::function<void(const nlohmann::json&)>& visit) {
  ReadResult res;
  GzPtr gz(gzopen(path.c_str(), "rb"));
  if (!gz) {
    res.error = "cannot open recording '" + path + "': " + std::strerror(errno);
    return res;
  }
  gzbuffer(gz.get(), kReadChunkBytes);
  res.ok = true;

  std::string pending;
  std::vector<char> buf(kReadChunkBytes);
  std::size_t line_no = 0;
  bool too_long = false;
  auto handle_line = [&](std::string_view line) {
    ++line_no;
    if (line.empty()) return;
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      ++res.skipped;
      if (res.skipped <= 3)
        res.warnings.push_back("line " + std::to_string(line_no) + " of '" + path +
                               "' is not a JSON object; skipped");
      return;
    }
    ++res.lines;
    visit(j);
  };

  bool stream_error = false;
  for (;;) {
    int n = gzread(gz.get(), buf.data(), static_cast<unsigned>(buf.size()));
    if (n < 0) {
      stream_error = true;
      break;
    }
    if (n == 0) {
      // gzread returns 0 both at a clean end and at a cut-off gzip stream;
      // gzerror tells them apart.
      int err = Z_OK;
      gzerror(gz.get(), &err);
      if (err != Z_OK && err != Z_STREAM_END) stream_error = true;
      break;
    }
    std::size_t start = 0;
    for (int i = 0; i < n; ++i) {
      if (buf[i] != '\n') continue;
      if (too_long) {
        too_long = false;
        pending.clear();
        ++res.skipped;
        res.warnings.push_back("a line over 32 MiB in '" + path + "' was skipped");
      } else {
        pending.append(buf.data() + start, i - start);
        handle_line(pending);
        pending.clear();
      }
      start = i + 1;
    }
    if (!too_long) pending.append(buf.data() + start, n - start);
    if (pending.size() > kMaxLineBytes) {
      too_long = true;
      pending.clear();
    }
  }

  if (!pending.empty() || too_long || stream_error) {
    // A last line without its newline is what a crash or kill -9 leaves.
    // It may still be complete JSON (the writer died between the object and
    // the newline): keep it if it parses, else drop it.
    auto j = too_long ? nlohmann::json(nlohmann::json::value_t::discarded)
                      : nlohmann::json::parse(pending, nullptr, false);
    if (!pending.empty() && !j.is_discarded() && j.is_object()) {
      ++res.lines;
      visit(j);
    } else if (!pending.empty() || too_long) {
      res.truncated = true;
      res.warnings.push_back("the recording '" + path + "' ends in a cut-off line (" +
                             std::to_string(pending.size()) +
                             " bytes), ignored; everything before it is analysed");
    }
    if (stream_error) {
      res.truncated = true;
      res.warnings.push_back("the compressed recording '" + path +
                             "' is cut off; everything before the cut is analysed");
    }
  }
  return res;
}

}  // namespace loopdoctor::recording
