#include "cli/target_label.h"

#include <algorithm>
#include <cctype>

namespace loopdoctor::cli {
namespace {

std::string_view base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool one_of(std::string_view word, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// Runtimes whose first argument that is not an option is the script the
// user thinks of as the target (node20: a versioned binary's name).
bool is_script_runner(std::string_view prog) {
  if (prog.starts_with("node") && (prog.size() == 4 || std::isdigit(static_cast<unsigned char>(prog[4]))))
    return true;
  return one_of(prog, {"nodejs", "tsx", "ts-node", "bun", "deno"});
}

// Node's options whose value is the next argument (the `--opt=value` form
// is one argument, skipped as an option): the value is not the script.
bool takes_value(std::string_view opt) {
  return one_of(opt, {"-r", "--require", "--import", "--loader", "--experimental-loader", "-C",
                      "--conditions", "--title", "--env-file", "--inspect-port", "--watch-path"});
}

// The script of `runner [options] [run] script ...`; "" when it runs none
// (-e, -p, a REPL).
std::string_view script_of(const std::vector<std::string>& cmd, std::size_t i) {
  for (; i < cmd.size(); ++i) {
    std::string_view arg = cmd[i];
    if (one_of(arg, {"-e", "--eval", "-p", "--print"})) return {};
    if (arg == "run") continue;  // bun run x.ts, deno run -A x.ts
    if (takes_value(arg)) {
      ++i;
      continue;
    }
    if (!arg.starts_with('-')) return base_name(arg);
  }
  return {};
}

// `npm start`, `npm run dev`: the package manager and the script's words,
// which say which of the package's scripts ran.
std::string package_script(std::string_view prog, const std::vector<std::string>& cmd, std::size_t i) {
  std::string label(prog);
  int words = 0;
  for (; i < cmd.size() && words < 2; ++i) {
    if (cmd[i].starts_with('-')) continue;
    label += "-" + cmd[i];
    if (++words == 1 && !one_of(cmd[i], {"run", "run-script", "exec"})) break;
  }
  return label;
}

}  // namespace

std::string safe_file_part(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    const bool keep = std::isalnum(c) || c == '.' || c == '_' || c == '-';
    if (keep) {
      out += static_cast<char>(c);
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  const std::size_t first = out.find_first_not_of(".-");
  out = first == std::string::npos ? std::string() : out.substr(first);
  if (out.size() > kMaxLabelChars) out.resize(kMaxLabelChars);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "target" : out;
}

std::string target_label(const std::vector<std::string>& command) {
  std::size_t i = 0;
  // `env A=1 B=2 node server.js`: the command env runs.
  if (i < command.size() && base_name(command[i]) == "env") {
    ++i;
    for (; i < command.size(); ++i) {
      if (one_of(command[i], {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})) ++i;  // and its value
      else if (!command[i].starts_with('-') && command[i].find('=') == std::string::npos) break;
    }
  }
  if (i >= command.size()) return "target";
  const std::string_view prog = base_name(command[i]);
  if (is_script_runner(prog)) {
    const std::string_view script = script_of(command, i + 1);
    return safe_file_part(script.empty() ? prog : script);
  }
  if (one_of(prog, {"npm", "yarn", "pnpm", "npx", "bunx"})) return safe_file_part(package_script(prog, command, i + 1));
  return safe_file_part(prog);
}

}  // namespace loopdoctor::cli
