// What the text of a script says about a position in it: the name an
// anonymous function can be given from the code that passes or assigns it,
// and where in a function a named call is made. Pure string functions over
// the script's lines (the Mapper reads them); a guess from the text only,
// so each answers nothing rather than something doubtful.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace loopdoctor::sourcemap {

// The code before an anonymous function is looked at this far back: enough
// for `app.get('/api/v1/quotes/:id', auth, ` and a line break, not a file.
inline constexpr std::size_t kMaxNameContextChars = 240;

// A name for the anonymous function whose text starts right after `before`
// (the script's text up to the function's position, a line or two):
//   http.createServer((req, res) =>      "request handler (createServer callback)"
//   server.on('request', function (      "request handler (server.on('request') callback)"
//   bus.on('request', (info) =>          "bus.on('request') listener"
//   app.get('/quote', async (req, res)   "request handler (app.get('/quote') callback)"
//   obj.method = function (              "obj.method"
//   total: function (                    "total"
// "" when the code says nothing certain (a callback passed to another call).
std::string name_from_context(std::string_view before);

// The column (0-based) in `line` at or after `from` where `callee` is called
// as a whole identifier (`callee(`, `.callee (`, tsc's `(0, m_1.callee)(`);
// std::nullopt when it is not.
std::optional<std::size_t> find_call(std::string_view line, std::string_view callee, std::size_t from = 0);

}  // namespace loopdoctor::sourcemap
