#include "recording/record_secrets.h"

#include <string>
#include <vector>

namespace loopdoctor::recording {
namespace {

using nlohmann::json;

void redact_text(json* parent, const char* key, const base::Redactor& r) {
  if (!parent->is_object()) return;
  auto it = parent->find(key);
  if (it != parent->end() && it->is_string()) *it = r.text(it->get_ref<const std::string&>());
}

// An argv as Redactor::argv reads one (an option's value after it goes too);
// an array with other things in it has its strings redacted one by one.
void redact_argv(json* parent, const char* key, const base::Redactor& r) {
  auto it = parent->find(key);
  if (it == parent->end() || !it->is_array()) return;
  std::vector<std::string> args;
  for (const json& a : *it)
    if (a.is_string()) args.push_back(a.get<std::string>());
  if (args.size() == it->size()) {
    *it = r.argv(args);
    return;
  }
  for (json& a : *it)
    if (a.is_string()) a = r.text(a.get_ref<const std::string&>());
}

}  // namespace

bool may_hold_secrets(Type type) {
  switch (type) {
    case Type::kMeta:
    case Type::kHello:
    case Type::kLoadStart:
    case Type::kLoadSummary:
    case Type::kWarning:
    case Type::kDetach:
    case Type::kProcessWarnings:
      return true;
    default:
      return false;
  }
}

void redact_record(json* record, const base::Redactor& r) {
  if (!record->is_object()) return;
  auto type_field = record->find("type");
  if (type_field == record->end() || !type_field->is_string()) return;
  switch (type_of(type_field->get_ref<const std::string&>())) {
    case Type::kMeta:
      redact_argv(record, "command", r);
      break;
    case Type::kHello:
      redact_argv(record, "argv", r);
      for (const char* key : {"job", "process_name", "thread_name", "probe_fallback"})
        redact_text(record, key, r);
      break;
    case Type::kLoadStart:
      redact_text(record, "command", r);
      [[fallthrough]];
    case Type::kLoadSummary:
      if (auto config = record->find("config"); config != record->end()) redact_text(&*config, "url", r);
      break;
    case Type::kWarning:
      redact_text(record, "text", r);
      break;
    case Type::kDetach:
      redact_text(record, "reason", r);
      break;
    case Type::kProcessWarnings:
      if (auto list = record->find("warnings"); list != record->end() && list->is_array())
        for (json& w : *list) redact_text(&w, "message", r);
      break;
    default:
      break;
  }
}

}  // namespace loopdoctor::recording
