// Encodes the one request a load run repeats. Every request of a run is the
// same bytes, so it is built once and shared read-only by all connections:
// the hot path never formats or allocates.
#pragma once

#include <string>

#include "agent/load/load.h"

namespace loopdoctor::load {

// The HTTP/1.1 request for cfg: request line, Host (unless cfg.headers has
// one), cfg.headers in order, Content-Length when there is a body or the
// method usually carries one (unless given), blank line, body.
std::string encode_request(const Config& cfg);

// `copies` back-to-back copies of `request`: the write buffer of one
// pipelined batch.
std::string repeat_request(const std::string& request, int copies);

// Checks a "Name: value" header line; false with *error naming it otherwise.
bool valid_header(const std::string& header, std::string* error);

}  // namespace loopdoctor::load
