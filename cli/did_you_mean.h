// "Did you mean": the message for a subcommand loopdoctor does not have.
#pragma once

#include <string>
#include <vector>

namespace loopdoctor::cli {

// The closest of `known` to `word` by edit distance (insertions, deletions,
// substitutions and swaps of neighbours), or "" when none is close enough to
// be a typo: within kMaxTypoEdits, and fewer edits than the word is long.
std::string closest_command(const std::string& word, const std::vector<std::string>& known);

// One or two lines naming the unknown word, the suggestion if any, and the
// commands there are.
std::string unknown_command_message(const std::string& word, const std::vector<std::string>& known);

}  // namespace loopdoctor::cli
