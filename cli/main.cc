// loopdoctor: one binary, one subcommand per file (cli/<name>.cc).
#include <algorithm>
#include <iostream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "cli/did_you_mean.h"
#include "cli/paths.h"

namespace {

// Every spelling of a subcommand's options: "--load", "-c", "--help".
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::string overview(const std::vector<loopdoctor::cli::Command>& commands) {
  std::string text = "loopdoctor: diagnose the event loop of a Node.js server.\n\nCommands:\n";
  for (const auto& c : commands) {
    std::string name = c.app->get_name();
    name.resize(std::max<std::size_t>(name.size(), 9), ' ');
    text += "  " + name + c.app->get_description() + "\n";
  }
  return text +
         "\nStart with:\n  loopdoctor run --load / -d 10s -- node server.js\n"
         "Then `loopdoctor <command> --help` for its options.";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace loopdoctor::cli;
  // loopdoctor writes only to stderr (stdout may carry --json -), and
  // spdlog's default logger writes to stdout: the collector's and the load's
  // log lines (a recording that could not be written) go to stderr, worded
  // like the rest. The agent sets its own (timestamped) logger.
  auto log = spdlog::stderr_color_mt("loopdoctor");
  log->set_pattern("loopdoctor: %l: %v");
  spdlog::set_default_logger(log);
  CLI::App app{"loopdoctor: diagnose the event loop of a Node.js server under load.\n"
               "  loopdoctor run --load / -- node server.js\n"
               "  loopdoctor run --on-port 'wrk -c50 -d10s http://127.0.0.1:{port}/' -- node server.js\n"
               "  loopdoctor analyze .loopdoctor/1234.ndjson.gz --json -\n"
               "  loopdoctor agent --listen 127.0.0.1:9464   then   eval \"$(loopdoctor env)\"; node server.js"};
  // The version line, then where the data files were found: the first thing
  // to check when an installed binary cannot find its probe or templates.
  app.set_version_flag("-V,--version", std::function<std::string()>([] {
    std::string text = std::string("loopdoctor ") + LOOPDOCTOR_VERSION;
    DataPaths paths;
    std::string error;
    if (find_data_paths(&paths, &error))
      text += "\nprobe:     " + paths.probe_js + "\ntemplates: " + paths.templates_dir;
    else
      text += "\n" + error;
    return text;
  }));
  app.require_subcommand(1);
  std::vector<Command> commands = {add_run(app),  add_attach(app), add_analyze(app), add_compare(app),
                                   add_bench(app), add_load(app),  add_agent(app),   add_env(app)};
  // Bare `loopdoctor`: what it can do, not CLI11's "A subcommand is required".
  if (argc == 1) {
    std::cerr << overview(commands) << "\n";
    return kExitUsage;
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  mark_compare_sides(&args);
  // CLI11 reads an unknown first word as a stray argument and says only "A
  // subcommand is required"; name the word and the likely command instead.
  if (argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto& c : commands) names.push_back(c.app->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::cerr << unknown_command_message(argv[1], names) << "\n";
      return kExitUsage;
    }
    // An unknown option (`--laod /`) makes CLI11 complain of the words after
    // it ("The following arguments were not expected: server.js node"):
    // name the option and the one meant.
    for (const auto& c : commands) {
      if (c.app->get_name() != argv[1]) continue;
      const std::vector<std::string> known = option_names(*c.app);
      const std::string unknown = first_unknown_option({args.begin() + 1, args.end()}, known);
      if (!unknown.empty()) {
        std::cerr << unknown_option_message(argv[1], unknown, known) << "\n";
        return kExitUsage;
      }
    }
  }
  try {
    // As parse(argc, argv) would: the program's name in the usage lines;
    // and CLI11 takes a vector last argument first.
    app.name(argv[0]);
    std::reverse(args.begin(), args.end());
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  for (const auto& c : commands)
    if (c.app->parsed()) return c.run();
  return kExitUsage;
}
