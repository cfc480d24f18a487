#include "agent/attach/cdp_message.h"

namespace loopdoctor::attach {
namespace {

// Enough of a reply to recognise it (an HTML error page, a "ok" body)
// without pasting a megabyte into a log line.
constexpr std::size_t kQuoteBytes = 80;

std::string error_text(const nlohmann::json& error) {
  if (!error.is_object()) return error.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string text = error.value("message", std::string("(no message)"));
  if (auto code = error.find("code"); code != error.end() && code->is_number_integer())
    text += " (code " + std::to_string(code->get<std::int64_t>()) + ")";
  if (auto data = error.find("data"); data != error.end() && data->is_string())
    text += ": " + data->get<std::string>();
  return text;
}

CdpMessage decode_reply(const nlohmann::json& msg, const nlohmann::json& id) {
  CdpMessage out;
  if (!id.is_number_unsigned()) return out;  // garbage
  out.kind = CdpMessage::Kind::reply;
  out.id = id.get<std::uint64_t>();
  if (auto error = msg.find("error"); error != msg.end())
    out.reply = CdpReply::failure(CdpReply::Status::cdp_error, error_text(*error));
  else
    out.reply = CdpReply::success(msg.value("result", nlohmann::json::object()));
  return out;
}

}  // namespace

std::string encode_cdp_call(std::uint64_t id, std::string_view method, const nlohmann::json& params) {
  nlohmann::json call = {{"id", id}, {"method", method}};
  if (!params.is_null()) call["params"] = params;
  return call.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

CdpMessage decode_cdp_message(std::string_view text) {
  auto msg = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (msg.is_discarded() || !msg.is_object()) return {};
  if (auto id = msg.find("id"); id != msg.end()) return decode_reply(msg, *id);
  CdpMessage out;
  auto method = msg.find("method");
  if (method == msg.end() || !method->is_string()) {
    out.kind = CdpMessage::Kind::other;
    return out;
  }
  out.kind = CdpMessage::Kind::event;
  out.method = method->get<std::string>();
  auto params = msg.find("params");
  out.params = params != msg.end() && params->is_object() ? *params : nlohmann::json::object();
  return out;
}

std::string quote_for_error(std::string_view text) {
  std::string out = "'";
  for (char c : text.substr(0, kQuoteBytes)) out += (c == '\n' || c == '\r') ? ' ' : c;
  out += "'";
  if (text.size() > kQuoteBytes) out += " (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace loopdoctor::attach
