#include "cli/did_you_mean.h"

#include <algorithm>
#include <cstddef>

namespace loopdoctor::cli {
namespace {

// Two edits cover the typos people make ("rn", "anlyze", "comapre") and the
// British "analyse"; three would also match unrelated short words.
constexpr std::size_t kMaxTypoEdits = 2;

// Optimal string alignment distance (Damerau-Levenshtein without
// overlapping edits): a swapped pair of letters counts as one edit.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closest_command(const std::string& word, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_distance = kMaxTypoEdits + 1;
  for (const auto& k : known) {
    const std::size_t d = edit_distance(word, k);
    if (d < best_distance && d < word.size()) {
      best = k;
      best_distance = d;
    }
  }
  return best;
}

std::string unknown_command_message(const std::string& word, const std::vector<std::string>& known) {
  std::string msg = "loopdoctor: unknown command '" + word + "'.";
  const std::string guess = closest_command(word, known);
  if (!guess.empty()) msg += " Did you mean '" + guess + "'?";
  msg += "\nCommands:";
  for (std::size_t i = 0; i < known.size(); ++i) msg += (i ? ", " : " ") + known[i];
  msg += " (loopdoctor --help, loopdoctor <command> --help).";
  return msg;
}

std::string first_unknown_option(const std::vector<std::string>& args, const std::vector<std::string>& known) {
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-' || (a[1] >= '0' && a[1] <= '9')) continue;  // a value, or -1
    std::string name = a.substr(0, a.find('='));
    // Short flags may be grouped or carry their value ("-c50"): the first letter names it.
    if (name[1] != '-') name = name.substr(0, 2);
    if (std::find(known.begin(), known.end(), name) == known.end()) return name;
  }
  return "";
}

std::string unknown_option_message(const std::string& command, const std::string& option,
                                   const std::vector<std::string>& known) {
  std::string msg = "loopdoctor " + command + ": unknown option '" + option + "'.";
  const std::string guess = closest_command(option, known);
  if (!guess.empty()) msg += " Did you mean '" + guess + "'?";
  return msg + " (loopdoctor " + command + " --help lists them.)";
}

}  // namespace loopdoctor::cli
