#include "analyzer/lsp/json_rpc.h"

namespace graphsafe::lsp {

bool isValidId(const nlohmann::json& id) {
  return id.is_number_integer() || id.is_number_unsigned() || id.is_string();
}

MessageKind classifyMessage(const nlohmann::json& message) {
  if (!message.is_object()) return MessageKind::kInvalid;
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") return MessageKind::kInvalid;
  auto method = message.find("method");
  auto id = message.find("id");
  if (method != message.end()) {
    if (!method->is_string()) return MessageKind::kInvalid;
    if (auto params = message.find("params"); params != message.end() && !params->is_object() &&
                                              !params->is_array() && !params->is_null()) {
      return MessageKind::kInvalid;
    }
    if (id == message.end()) return MessageKind::kNotification;
    return isValidId(*id) ? MessageKind::kRequest : MessageKind::kInvalid;
  }
  if (id != message.end() && (message.contains("result") || message.contains("error"))) {
    return MessageKind::kResponse;
  }
  return MessageKind::kInvalid;
}

nlohmann::json makeResponse(const nlohmann::json& id, nlohmann::json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

nlohmann::json makeError(const nlohmann::json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"},
          {"id", isValidId(id) ? id : nlohmann::json(nullptr)},
          {"error", {{"code", code}, {"message", message}}}};
}

nlohmann::json makeNotification(const std::string& method, nlohmann::json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

nlohmann::json makeRequest(const nlohmann::json& id, const std::string& method,
                           nlohmann::json params) {
  nlohmann::json request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) request["params"] = std::move(params);
  return request;
}

std::string serialize(const nlohmann::json& message) {
  return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace graphsafe::lsp
