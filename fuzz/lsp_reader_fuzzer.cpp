// The LSP server's input side on arbitrary bytes: base-protocol framing (Content-Length headers,
// resynchronization after garbage), JSON parsing and JSON-RPC classification, then what
// didOpen / didChange notifications do to the open documents (incremental ranges in every
// position encoding, clamping). The server itself runs these on a pipe; here the bytes come
// from a memory file so that a run is one call.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "analyzer/lsp/document_store.h"
#include "analyzer/lsp/json_rpc.h"
#include "analyzer/lsp/message_transport.h"
#include "analyzer/lsp/position_encoding.h"

namespace {

using graphsafe::lsp::DocumentStore;
using graphsafe::lsp::PositionEncoding;
using json = nlohmann::json;

// Messages nested deeper than this are refused by the server before parsing.
bool nestedTooDeeply(const std::string& text) {
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{') {
      if (++depth > 256) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

void apply(const json& message, DocumentStore& store, PositionEncoding encoding) {
  const json* method = message.contains("method") ? &message["method"] : nullptr;
  const json* params = message.contains("params") ? &message["params"] : nullptr;
  if (method == nullptr || !method->is_string() || params == nullptr || !params->is_object()) {
    return;
  }
  const json* document = params->contains("textDocument") ? &(*params)["textDocument"] : nullptr;
  if (document == nullptr || !document->is_object()) return;
  std::string uri;
  if (document->contains("uri") && (*document)["uri"].is_string()) {
    uri = (*document)["uri"].get<std::string>();
  }
  std::int64_t version = 0;
  if (document->contains("version") && (*document)["version"].is_number_integer()) {
    version = (*document)["version"].get<std::int64_t>();
  }
  if (*method == "textDocument/didOpen") {
    std::string text;
    if (document->contains("text") && (*document)["text"].is_string()) {
      text = (*document)["text"].get<std::string>();
    }
    store.open(uri, "python", version, std::move(text));
  } else if (*method == "textDocument/didChange" && params->contains("contentChanges")) {
    std::string warning;
    store.change(uri, version, (*params)["contentChanges"], encoding, warning);
  } else if (*method == "textDocument/didClose") {
    store.close(uri);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphsafe::lsp;
  int fd = ::memfd_create("lsp-input", MFD_CLOEXEC);
  if (fd < 0) return 0;
  std::size_t written = 0;
  while (written < size) {
    ssize_t got = ::write(fd, data + written, size - written);
    if (got <= 0) break;
    written += static_cast<std::size_t>(got);
  }
  ::lseek(fd, 0, SEEK_SET);

  MessageReader reader(fd);
  DocumentStore store;
  // The first byte picks the negotiated encoding, so that every conversion path is reached.
  PositionEncoding encoding = size == 0          ? PositionEncoding::kUtf16
                              : data[0] % 3 == 0 ? PositionEncoding::kUtf8
                              : data[0] % 3 == 1 ? PositionEncoding::kUtf16
                                                 : PositionEncoding::kUtf32;
  for (int frames = 0; frames < 4096; ++frames) {
    Frame frame = reader.read();
    if (frame.kind == Frame::Kind::kEndOfStream) break;
    if (frame.kind != Frame::Kind::kMessage || nestedTooDeeply(frame.body)) continue;
    json message = json::parse(frame.body, nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded()) continue;
    MessageKind kind = classifyMessage(message);
    if (message.is_object() && message.contains("id")) isValidId(message["id"]);
    if (kind == MessageKind::kNotification) apply(message, store, encoding);
    serialize(makeResponse(message.is_object() && message.contains("id") ? message["id"] : json(),
                           message));
  }
  ::close(fd);
  return 0;
}
