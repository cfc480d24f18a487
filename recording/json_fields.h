// Reading and writing fields of a record's JSON object: the shared helpers of
// records.cc, probe_messages.cc and cause_records.cc (internal to the
// recording library). Every
// reader here never throws: a missing or wrong-typed field reads as the default.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recording/records.h"

namespace loopdoctor::recording::fields {

using nlohmann::json;

inline double num(const json& j, const char* key, double fallback = 0) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  double v = it->get<double>();
  return std::isfinite(v) ? v : fallback;
}

inline std::optional<double> opt_num(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

inline std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline std::optional<std::string> opt_str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// An integer outside int's range reads as absent: its conversion would wrap
// it to another number (a port of 2^32 + 80 read as 80).
inline std::optional<int> opt_int(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  constexpr std::int64_t kMin = std::numeric_limits<int>::min(), kMax = std::numeric_limits<int>::max();
  if (it->is_number_unsigned()) {
    const auto v = it->get<std::uint64_t>();
    return v <= static_cast<std::uint64_t>(kMax) ? std::optional<int>(static_cast<int>(v)) : std::nullopt;
  }
  const auto v = it->get<std::int64_t>();
  return v >= kMin && v <= kMax ? std::optional<int>(static_cast<int>(v)) : std::nullopt;
}

// A frame's line or column as an int. One outside int's range (a damaged
// line) reads as 0, unknown: the cast of it was undefined behaviour (fuzz
// finding).
inline int position(const json& f, const char* key) {
  const double v = num(f, key);
  constexpr double kMin = std::numeric_limits<int>::min(), kMax = std::numeric_limits<int>::max();
  return v >= kMin && v <= kMax ? static_cast<int>(v) : 0;
}

inline bool flag(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

inline const json& obj(const json& j, const char* key) {
  static const json kEmpty = json::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

inline std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  if (auto it = j.find(key); it != j.end() && it->is_array())
    for (const auto& a : *it)
      if (a.is_string()) out.push_back(a.get<std::string>());
  return out;
}

// A record's list of entries (a block's frames, an outbound line's
// destinations): `key`'s array, each object in it read by `decode_entry`,
// anything else in it skipped, and at most `max` kept (the probe's bound: a
// longer list is a damaged or hostile line, not more to read).
template <class DecodeEntry>
auto entries(const json& j, const char* key, DecodeEntry decode_entry,
             std::size_t max = std::numeric_limits<std::size_t>::max()) {
  std::vector<decltype(decode_entry(j))> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  out.reserve(std::min(it->size(), max));
  for (const json& e : *it)
    if (e.is_object() && out.size() < max) out.push_back(decode_entry(e));
  return out;
}

// The array `entries` reads back: each entry written by `encode_entry`.
template <class T, class EncodeEntry>
json entries_json(const std::vector<T>& list, EncodeEntry encode_entry) {
  json a = json::array();
  for (const T& e : list) a.push_back(encode_entry(e));
  return a;
}

// Counts were always written as JSON integers; keep them so.
inline json count(double v) { return static_cast<std::uint64_t>(std::max(0.0, v)); }

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

inline json record(Type type, double t) { return {{"type", type_name(type)}, {"t", t}}; }

}  // namespace loopdoctor::recording::fields
