// Active handles by libuv type for one probe sample ("TCPSocketWrap" -> 50).
//
// It reads like the std::map<std::string, double> it replaces (iteration in
// name order yields std::pair<std::string, double>, find, operator[], erase),
// but its entries sit in one shared, immutable-once-shared block: an hour at
// 10 ms is 360,000 samples whose by-type counts take only a few hundred
// distinct values, and a map per sample (~80 bytes per entry in its own node,
// plus the map) was most of a long recording's memory. A sample now holds one
// shared_ptr (16 bytes); HandleCountsPool lets a timeline builder make equal
// sets share one block.
//
// Copying is a reference-count increment. A change (operator[], erase, clear)
// first gives this object its own copy of the entries, so a change never shows
// through another copy; a reference returned by operator[] is valid until the
// next change, copy or assignment of this object.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace loopdoctor {

class HandleCounts {
 public:
  using value_type = std::pair<std::string, double>;
  using Entries = std::vector<value_type>;  // sorted by name, names unique
  using const_iterator = Entries::const_iterator;
  using iterator = const_iterator;  // entries change only through operator[]

  HandleCounts() = default;
  HandleCounts(std::initializer_list<value_type> init) {
    for (const auto& [k, v] : init) (*this)[k] = v;  // a repeated name keeps the last
  }
  // Takes entries already sorted by name, each name once (not checked).
  static HandleCounts from_sorted(Entries sorted) {
    HandleCounts h;
    if (!sorted.empty()) h.entries_ = std::make_shared<Entries>(std::move(sorted));
    return h;
  }

  const_iterator begin() const { return entries().begin(); }
  const_iterator end() const { return entries().end(); }
  std::size_t size() const { return entries_ ? entries_->size() : 0; }
  bool empty() const { return size() == 0; }

  const_iterator find(std::string_view name) const {
    auto it = lower(name);
    return it != end() && it->first == name ? it : end();
  }
  std::size_t count(std::string_view name) const { return find(name) != end() ? 1 : 0; }
  bool contains(std::string_view name) const { return find(name) != end(); }

  // Inserts 0 for a new name, as std::map does.
  double& operator[](std::string_view name) {
    Entries& e = own();
    auto it = std::lower_bound(e.begin(), e.end(), name,
                               [](const value_type& a, std::string_view n) { return a.first < n; });
    if (it == e.end() || it->first != name) it = e.insert(it, value_type(std::string(name), 0.0));
    return it->second;
  }
  std::size_t erase(std::string_view name) {
    if (find(name) == end()) return 0;
    Entries& e = own();
    e.erase(std::find_if(e.begin(), e.end(), [&](const value_type& a) { return a.first == name; }));
    if (e.empty()) entries_.reset();
    return 1;
  }
  void clear() { entries_.reset(); }

  // True when both hold the very same block (pool sharing, copies).
  bool shares_with(const HandleCounts& o) const { return entries_ && entries_ == o.entries_; }

  friend bool operator==(const HandleCounts& a, const HandleCounts& b) {
    return a.entries_ == b.entries_ || a.entries() == b.entries();
  }

 private:
  const Entries& entries() const {
    static const Entries kNone;
    return entries_ ? *entries_ : kNone;
  }
  const_iterator lower(std::string_view name) const {
    return std::lower_bound(begin(), end(), name,
                            [](const value_type& a, std::string_view n) { return a.first < n; });
  }
  // Always a fresh block: a shared one may be read by another copy (even on
  // another thread), so it is never written in place.
  Entries& own() {
    entries_ = entries_ ? std::make_shared<Entries>(*entries_) : std::make_shared<Entries>();
    return *entries_;
  }

  std::shared_ptr<Entries> entries_;  // null when there is no entry
};

// Equal sets of counts, stored once: a timeline builder hands every parsed set
// to intern() and keeps what it returns. Holds at most kMaxSets distinct sets;
// past that, new sets are returned unshared (still correct, only larger), so
// a recording whose counts never repeat cannot grow the pool without bound.
class HandleCountsPool {
 public:
  // Distinct sets kept for sharing. A real process shows a few hundred (a
  // socket count wandering over a range); 2^16 sets of a few entries is a few MB.
  static constexpr std::size_t kMaxSets = 1 << 16;

  // `sorted`: sorted by name, each name once. A set seen before costs no
  // allocation: the lookup compares entries, not a freshly built block.
  HandleCounts intern(const HandleCounts::Entries& sorted) {
    if (sorted.empty()) return {};
    auto& bucket = sets_[hash(sorted)];
    for (const HandleCounts& h : bucket)
      if (std::equal(h.begin(), h.end(), sorted.begin(), sorted.end())) return h;
    HandleCounts h = HandleCounts::from_sorted(sorted);
    if (size_ < kMaxSets) bucket.push_back(h), ++size_;
    return h;
  }
  std::size_t size() const { return size_; }

 private:
  static std::size_t hash(const HandleCounts::Entries& e) {
    std::size_t seed = e.size();
    auto mix = [&seed](std::size_t v) { seed ^= v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2); };
    for (const auto& [k, v] : e) mix(std::hash<std::string>()(k)), mix(std::hash<double>()(v));
    return seed;
  }
  std::unordered_map<std::size_t, std::vector<HandleCounts>> sets_;  // by hash
  std::size_t size_ = 0;
};

}  // namespace loopdoctor
