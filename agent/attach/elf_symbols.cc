#include "agent/attach/elf_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "agent/attach/unique_fd.h"

namespace loopdoctor::attach {
namespace {

// Node 22's .dynstr is 7.5 MB and its .dynsym 2.1 MB (readelf -S); a
// section claiming more than this is a corrupt header, not a bigger Node.
constexpr std::uint64_t kMaxSectionBytes = 64u << 20;

bool read_at(int fd, std::uint64_t offset, std::size_t size, void* out) {
  auto* p = static_cast<char*>(out);
  while (size > 0) {
    ssize_t n = ::pread(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    offset += static_cast<std::uint64_t>(n);
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool read_section(int fd, const Elf64_Shdr& sh, std::vector<char>* out) {
  if (sh.sh_size > kMaxSectionBytes) return false;
  out->resize(sh.sh_size);
  return read_at(fd, sh.sh_offset, out->size(), out->data());
}

bool valid_header(const Elf64_Ehdr& eh) {
  return std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
         eh.e_ident[EI_DATA] == ELFDATA2LSB && eh.e_shentsize == sizeof(Elf64_Shdr) &&
         eh.e_shnum > 0 && eh.e_shnum < SHN_LORESERVE;
}

// Offsets in `strtab` where `symbol` is a whole NUL-terminated string.
std::vector<std::uint32_t> name_offsets(const std::vector<char>& strtab, std::string_view symbol) {
  std::vector<std::uint32_t> out;
  std::string_view all(strtab.data(), strtab.size());
  for (std::size_t at = all.find(symbol); at != std::string_view::npos; at = all.find(symbol, at + 1)) {
    bool starts = at == 0 || all[at - 1] == '\0';
    bool ends = at + symbol.size() < all.size() && all[at + symbol.size()] == '\0';
    if (starts && ends) out.push_back(static_cast<std::uint32_t>(at));
  }
  return out;
}

bool defines_name(const std::vector<char>& symtab, const std::vector<std::uint32_t>& names) {
  for (std::size_t at = 0; at + sizeof(Elf64_Sym) <= symtab.size(); at += sizeof(Elf64_Sym)) {
    Elf64_Sym sym;
    std::memcpy(&sym, symtab.data() + at, sizeof sym);
    if (sym.st_shndx == SHN_UNDEF) continue;
    for (std::uint32_t n : names)
      if (sym.st_name == n) return true;
  }
  return false;
}

std::optional<bool> fail(std::string* error, const std::string& path, const char* why) {
  if (error) *error = "'" + path + "': " + why;
  return std::nullopt;
}

}  // namespace

std::optional<bool> elf_exports_symbol(const std::string& path, std::string_view symbol,
                                       std::string* error) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return fail(error, path, std::strerror(errno));
  Elf64_Ehdr eh;
  if (!read_at(fd.get(), 0, sizeof eh, &eh) || !valid_header(eh))
    return fail(error, path, "not a 64-bit little-endian ELF file");
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!read_at(fd.get(), eh.e_shoff, sections.size() * sizeof(Elf64_Shdr), sections.data()))
    return fail(error, path, "section headers out of the file");
  for (const Elf64_Shdr& sh : sections) {
    if (sh.sh_type != SHT_DYNSYM) continue;
    if (sh.sh_link >= sections.size()) return fail(error, path, "dynamic symbols without a string table");
    std::vector<char> strtab, symtab;
    if (!read_section(fd.get(), sections[sh.sh_link], &strtab) || !read_section(fd.get(), sh, &symtab))
      return fail(error, path, "dynamic symbol table out of the file");
    auto names = name_offsets(strtab, symbol);
    return !names.empty() && defines_name(symtab, names);
  }
  return false;  // statically linked: exports nothing
}

}  // namespace loopdoctor::attach
