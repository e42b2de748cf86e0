#pragma once

// JSON-RPC 2.0 messages as LSP uses them: error codes, and building responses, errors and
// notifications.

#include <nlohmann/json.hpp>
#include <string>

namespace graphsafe::lsp {

namespace rpc_error {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kServerNotInitialized = -32002;
inline constexpr int kRequestCancelled = -32800;
}  // namespace rpc_error

// What an incoming message is, by the fields it has.
enum class MessageKind { kRequest, kNotification, kResponse, kInvalid };
MessageKind classifyMessage(const nlohmann::json& message);

// An id is a number or a string; anything else is not a valid request id.
bool isValidId(const nlohmann::json& id);

nlohmann::json makeResponse(const nlohmann::json& id, nlohmann::json result);
nlohmann::json makeError(const nlohmann::json& id, int code, const std::string& message);
nlohmann::json makeNotification(const std::string& method, nlohmann::json params);
nlohmann::json makeRequest(const nlohmann::json& id, const std::string& method,
                           nlohmann::json params);

// Serializes without ever throwing: invalid UTF-8 in a string is replaced.
std::string serialize(const nlohmann::json& message);

}  // namespace graphsafe::lsp
