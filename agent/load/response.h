// Response side of one keep-alive connection: http-parser (the parser wrk
// uses) fed with whatever the socket delivered, reporting each complete
// response. Socket-free so the edge cases (chunked bodies, pipelined
// responses, Connection: close, truncation) are unit-testable.
#pragma once

#include <cstddef>

#include <http_parser.h>

namespace loopdoctor::load {

class ResponseParser {
 public:
  // Called once per complete final (non-1xx) response with its status code.
  using CompleteFn = void (*)(void* ctx, int status);

  enum class Feed {
    kOk,     // all bytes consumed; the connection stays usable
    kClose,  // a response asked to close (Connection: close / HTTP/1.0):
             // stop using the connection; later bytes were not parsed
    kError,  // malformed response, or a 101 upgrade to another protocol
             // (we never ask for one); see error_name()
  };

  ResponseParser(CompleteFn on_complete, void* ctx);
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;

  // Starts a fresh connection. head: responses answer HEAD requests, so
  // they carry no body whatever their Content-Length says.
  void reset(bool head);
  Feed feed(const char* data, std::size_t len);
  // The peer closed. Completes a response delimited by the close (no
  // Content-Length, not chunked). Returns true when a response had begun
  // and was cut short: a truncated response.
  bool eof();
  // True between the first byte of a response and its end.
  bool in_message() const { return in_message_; }
  const char* error_name() const;

 private:
  static int on_message_begin(http_parser* p);
  static int on_headers_complete(http_parser* p);
  static int on_message_complete(http_parser* p);
  static const http_parser_settings kSettings;

  http_parser parser_{};
  CompleteFn on_complete_;
  void* ctx_;
  bool head_ = false;
  bool in_message_ = false;
  bool close_ = false;
  bool upgraded_ = false;  // a 101 switched protocols: no more HTTP here
};

}  // namespace loopdoctor::load
