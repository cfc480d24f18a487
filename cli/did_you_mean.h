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

// The first option in `args` (a subcommand's arguments, up to a `--`) that is
// not one of `known` ("--load", "-c", ...), with "--name=value" read as
// "--name"; "" when all are known. A word that does not start with '-' is a
// value or a positional, not checked.
std::string first_unknown_option(const std::vector<std::string>& args, const std::vector<std::string>& known);

// "loopdoctor run: unknown option '--laod'. Did you mean '--load'?" and how
// to list the options.
std::string unknown_option_message(const std::string& command, const std::string& option,
                                   const std::vector<std::string>& known);

}  // namespace loopdoctor::cli
