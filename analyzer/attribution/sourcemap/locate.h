// Finding a script's source map: the file a script URL names, its
// `//# sourceMappingURL=` comment, and the map behind it (a file, or an
// inline `data:` URL). Pure string functions; the Mapper does the reading.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace loopdoctor::sourcemap {

// The file path a script URL names: "file:///srv/app/dist/x.js" ->
// "/srv/app/dist/x.js" (percent-escapes decoded), an absolute or relative
// path as it is. "" for URLs that name no file ("node:fs", "http://...",
// "webpack://app/x.js", "").
std::string path_of_url(std::string_view url);

// The value of the last `//# sourceMappingURL=` (or the older `//@`) comment
// in a script's text, as Node and browsers take it; std::nullopt without one.
std::optional<std::string> source_mapping_url(std::string_view script);

// True for a `data:` URL.
bool is_data_url(std::string_view url);

// The document a `data:` URL carries: `data:application/json;base64,...`,
// `data:application/json;charset=utf-8;base64,...`, or without `;base64`,
// percent-encoded. std::nullopt with *error when it is not JSON or the
// base64 is corrupt.
std::optional<std::string> decode_data_url(std::string_view url, std::string* error);

// Standard base64 (padding optional; whitespace not allowed). std::nullopt
// at the first character outside the alphabet.
std::optional<std::string> base64_decode(std::string_view in);

// Percent-decodes %XX escapes; a malformed escape is kept as written.
std::string percent_decode(std::string_view in);

}  // namespace loopdoctor::sourcemap
