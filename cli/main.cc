#include <iostream>

#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
  CLI::App app{"loopdoctor: diagnose the event loop of a Node.js server under load"};
  app.set_version_flag("--version", std::string("loopdoctor ") + LOOPDOCTOR_VERSION);
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
