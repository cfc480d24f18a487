// What the fuzz targets share: an input held as a file the tool can open by
// path (the recording reader takes a path, not bytes), a reader of
// fuzzer-chosen parameters off the front of an input, and the invariant
// check that turns a wrong answer into a crash libFuzzer keeps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace loopdoctor::fuzz {

// The bytes as an anonymous in-memory file (memfd): no disk writes per run,
// nothing left behind, and its /proc/self/fd path opens like a file.
class MemFile {
 public:
  MemFile(const void* data, std::size_t size);
  ~MemFile();
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// Takes parameters from the front of the input, the rest is the payload:
// libFuzzer mutates both, so a parameter (a cut point, a mode) is explored
// like any byte. Past the end every value reads 0.
class Params {
 public:
  Params(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte();
  std::uint16_t u16();
  std::string_view rest() const {
    return {reinterpret_cast<const char*>(data_ + pos_), size_ - pos_};
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// Cuts of a byte stream as a socket would deliver them: sizes 1..max drawn
// from a generator seeded by the input, so the same input always cuts alike.
class Cuts {
 public:
  Cuts(std::uint32_t seed, std::size_t max) : state_(seed | 1u), max_(max) {}
  std::size_t next();

 private:
  std::uint32_t state_;
  std::size_t max_;
};

// An invariant of the code under test broke: prints `what` and aborts, which
// libFuzzer records as a crash with the input that caused it.
[[noreturn]] void fail(const std::string& what);
inline void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}
// The same with a detail (the offending line or message) appended only when
// the check fails: checks made per line or message would otherwise build
// and free a string each time.
inline void check(bool ok, const char* what, std::string_view detail) {
  if (!ok) fail(what + std::string(detail));
}

}  // namespace loopdoctor::fuzz
