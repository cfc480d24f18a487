// Whether an executable exports a symbol: how a Node binary is recognised
// when it is not named node (a renamed copy, a single-executable
// application): every Node build exports the N-API functions so that native
// addons can link against the executable itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace loopdoctor::attach {

// True when the ELF file at `path` (a /proc/PID/exe link works, across mount
// namespaces too) defines `symbol` in its dynamic symbol table; false when
// the table lacks it or only imports it. nullopt, with *error saying why,
// for a file that is not a readable 64-bit little-endian ELF or whose
// section headers are missing or out of bounds. Reads the .dynsym and
// .dynstr sections only (about 10 MB for Node 22), never the whole file.
std::optional<bool> elf_exports_symbol(const std::string& path, std::string_view symbol,
                                       std::string* error = nullptr);

}  // namespace loopdoctor::attach
