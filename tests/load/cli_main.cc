// Stand-in for cli/main.cc with only `load` registered, so the subcommand
// can be run (bench/load-vs-peers, by hand) before the lead wires it into
// the real binary.
#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"loopdoctor (load only, development build)"};
  app.require_subcommand(1);
  loopdoctor::cli::Command load = loopdoctor::cli::add_load(app);
  CLI11_PARSE(app, argc, argv);
  return load.run();
}
