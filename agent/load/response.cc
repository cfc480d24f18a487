#include "agent/load/response.h"

namespace loopdoctor::load {

namespace {
constexpr int kFirstFinalStatus = 200;  // 1xx responses are interim, not answers
}  // namespace

const http_parser_settings ResponseParser::kSettings = [] {
  http_parser_settings s{};
  s.on_message_begin = &ResponseParser::on_message_begin;
  s.on_headers_complete = &ResponseParser::on_headers_complete;
  s.on_message_complete = &ResponseParser::on_message_complete;
  return s;
}();

ResponseParser::ResponseParser(CompleteFn on_complete, void* ctx)
    : on_complete_(on_complete), ctx_(ctx) {
  reset(false);
}

void ResponseParser::reset(bool head) {
  http_parser_init(&parser_, HTTP_RESPONSE);
  parser_.data = this;
  head_ = head;
  in_message_ = false;
  close_ = false;
  upgraded_ = false;
}

int ResponseParser::on_message_begin(http_parser* p) {
  static_cast<ResponseParser*>(p->data)->in_message_ = true;
  return 0;
}

int ResponseParser::on_headers_complete(http_parser* p) {
  // Returning 1 tells http-parser the response has no body (HEAD).
  return static_cast<ResponseParser*>(p->data)->head_ ? 1 : 0;
}

int ResponseParser::on_message_complete(http_parser* p) {
  auto* self = static_cast<ResponseParser*>(p->data);
  self->in_message_ = false;
  if (p->status_code < kFirstFinalStatus) return 0;
  self->on_complete_(self->ctx_, static_cast<int>(p->status_code));
  if (!http_should_keep_alive(p)) {
    // Stop here: whatever follows a closing response is not ours to count.
    self->close_ = true;
    http_parser_pause(p, 1);
  }
  return 0;
}

ResponseParser::Feed ResponseParser::feed(const char* data, std::size_t len) {
  if (close_) return Feed::kClose;
  if (upgraded_) return Feed::kError;
  const std::size_t parsed = http_parser_execute(&parser_, &kSettings, data, len);
  if (close_) return Feed::kClose;
  // http-parser stops after an upgrade's headers and leaves the rest to the
  // new protocol. Decided here, not by whether more bytes came in this read:
  // the outcome must not depend on where the socket cut the stream.
  if (parser_.upgrade) {
    upgraded_ = true;
    in_message_ = false;
    return Feed::kError;
  }
  if (parser_.http_errno != HPE_OK || parsed != len) return Feed::kError;
  return Feed::kOk;
}

bool ResponseParser::eof() {
  if (close_ || upgraded_ || !in_message_) return false;
  http_parser_execute(&parser_, &kSettings, nullptr, 0);
  return in_message_;
}

const char* ResponseParser::error_name() const {
  if (upgraded_) return "upgrade";
  return http_errno_name(static_cast<http_errno>(parser_.http_errno));
}

}  // namespace loopdoctor::load
