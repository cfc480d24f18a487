// What names a target in the file names of its runs (cli/output_files.h):
// a word the user recognises in `ls .loopdoctor/`, and the key that finds
// the earlier runs of the same target for `compare`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loopdoctor::cli {

// Longest label kept: a file name stays readable and far below NAME_MAX
// (255) with the time and the extensions around it.
inline constexpr std::size_t kMaxLabelChars = 60;

// The label of a command, as run (`run -- <command>`) or as the attached
// process's argv reads:
//   node [options] dist/server.js ...     server.js  (tsx, ts-node, bun: the same)
//   node -e '...' / node alone            node
//   npm start, npm run dev, yarn dev      npm-start, npm-run-dev, yarn-dev
//   env A=1 node server.js                server.js   (env and its settings skipped)
//   ./start.sh --port 3000, sleep 30      start.sh, sleep
// then made a safe file name (safe_file_part). Empty command: "target".
std::string target_label(const std::vector<std::string>& command);

// `text` as a part of a file name: letters, digits, '.', '_' and '-' kept,
// anything else (a '/', a space, a quote, a control character) one '-',
// no leading '.' or '-' (no hidden file, no option), at most
// kMaxLabelChars; "target" when nothing is left.
std::string safe_file_part(std::string_view text);

}  // namespace loopdoctor::cli
