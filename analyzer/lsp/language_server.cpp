#include "analyzer/lsp/language_server.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/engine/engine.h"
#include "analyzer/lsp/background_analysis.h"
#include "analyzer/lsp/code_actions.h"
#include "analyzer/lsp/diagnostic_conversion.h"
#include "analyzer/lsp/document_store.h"
#include "analyzer/lsp/file_uri.h"
#include "analyzer/lsp/hover.h"
#include "analyzer/lsp/json_rpc.h"
#include "analyzer/lsp/message_transport.h"
#include "analyzer/lsp/workspace_settings.h"

namespace graphsafe::lsp {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Deeper JSON than this is refused before parsing: nothing in LSP nests this far, and copies
// of a JSON value recurse.
constexpr int kMaxJsonDepth = 256;
// So is JSON of more values than this (counted from its brackets and separators). A parsed
// value takes up to a few hundred bytes, so 60 MB of `{"":{}},` would take gigabytes; and an
// allocation failure inside the parser cannot be recovered from, as nlohmann::json's
// destructor allocates while it unwinds (and is noexcept). Real messages hold far fewer values:
// a document's text is one.
constexpr std::size_t kMaxJsonValues = 2'000'000;

// The reader thread stops reading while this much waits for the main loop: a client that
// sends faster than the server answers (or that never reads, so that the main loop blocks on
// its output) then blocks in its own writes instead of growing the server. At least one message
// is always let in, whatever its size.
constexpr std::size_t kMaxQueuedMessages = 1024;
constexpr std::size_t kMaxQueuedBytes = std::size_t{16} << 20;

// One message read and not handled yet.
struct Queued {
  json message;
  std::size_t bytes = 0;
  std::string request_id;  // a request's id, serialized; empty for anything else
};

// What the reader thread hands to the main loop.
struct Inbox {
  std::mutex mutex;
  std::condition_variable ready;
  std::condition_variable space;
  std::deque<Queued> messages;
  std::size_t queued_bytes = 0;
  // The requests in `messages`, by serialized id: how many (a client may reuse an id) and
  // whether the client cancelled them. A cancellation for any other id (one being handled,
  // answered already, or never sent) can change nothing and is dropped, so this holds no more
  // than `messages` does, however many cancellations arrive.
  struct Pending {
    int count = 0;
    bool cancelled = false;
  };
  std::map<std::string, Pending> pending;
  bool closed = false;
  // The analysis thread has an output for the main loop.
  bool analysis_finished = false;

  // Takes the next message; `cancelled` says whether the client cancelled it while it waited.
  Queued pop(bool& cancelled) {
    Queued next = std::move(messages.front());
    messages.pop_front();
    queued_bytes -= next.bytes;
    cancelled = false;
    if (!next.request_id.empty()) {
      auto it = pending.find(next.request_id);
      if (it != pending.end()) {
        cancelled = it->second.cancelled;
        if (--it->second.count == 0) pending.erase(it);
      }
    }
    space.notify_one();
    return next;
  }
};

// Why `text` is refused before parsing (too deep, too many values), or empty.
std::string shapeProblem(std::string_view text) {
  int depth = 0;
  std::size_t values = 1;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return "the message is nested too deeply";
      ++values;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ',' || c == ':') {
      ++values;
    }
    if (values > kMaxJsonValues) {
      return "the message holds more than " + std::to_string(kMaxJsonValues) + " JSON values";
    }
  }
  return std::string();
}

// Reads, parses and queues one message. An allocation failure (buffering a body near the size
// limit under a low memory limit) is caught by the caller.
void readOne(MessageReader& reader, Inbox& inbox, MessageWriter& out, bool& end) {
  Frame frame = reader.read();
  if (frame.kind == Frame::Kind::kEndOfStream) {
    end = true;
    return;
  }
  if (frame.kind == Frame::Kind::kBadHeader) {
    out.write(serialize(
        makeError(nullptr, rpc_error::kParseError, "bad message header: " + frame.error)));
    return;
  }
  if (frame.kind == Frame::Kind::kTooLarge) {
    // The body is unread, so its id is unknown: JSON-RPC answers with a null id then. The
    // error is also logged, as a client may show a response without an id nowhere.
    out.write(serialize(makeError(nullptr, rpc_error::kInvalidRequest, frame.error)));
    out.write(serialize(makeNotification("window/logMessage",
                                         {{"type", 1}, {"message", "graphsafe: " + frame.error}})));
    return;
  }
  if (std::string problem = shapeProblem(frame.body); !problem.empty()) {
    out.write(serialize(makeError(nullptr, rpc_error::kInvalidRequest, problem)));
    return;
  }
  Queued queued;
  queued.bytes = frame.body.size();
  queued.message = json::parse(frame.body, nullptr, /*allow_exceptions=*/false);
  frame.body = std::string();
  json& message = queued.message;
  if (message.is_discarded()) {
    out.write(
        serialize(makeError(nullptr, rpc_error::kParseError, "the message is not valid JSON")));
    return;
  }
  if (message.is_object() && message.contains("method") && message["method"] == "$/cancelRequest") {
    const json* params = message.contains("params") ? &message["params"] : nullptr;
    if (params != nullptr && params->is_object() && params->contains("id") &&
        isValidId((*params)["id"])) {
      std::lock_guard lock(inbox.mutex);
      auto it = inbox.pending.find((*params)["id"].dump());
      if (it != inbox.pending.end()) it->second.cancelled = true;
    }
    return;
  }
  if (classifyMessage(message) == MessageKind::kRequest) queued.request_id = message["id"].dump();
  std::unique_lock lock(inbox.mutex);
  inbox.space.wait(lock, [&] {
    return inbox.messages.empty() || (inbox.messages.size() < kMaxQueuedMessages &&
                                      inbox.queued_bytes + queued.bytes <= kMaxQueuedBytes);
  });
  std::string request_id = queued.request_id;
  inbox.queued_bytes += queued.bytes;
  inbox.messages.push_back(std::move(queued));
  inbox.ready.notify_one();
  if (!request_id.empty()) ++inbox.pending[request_id].count;
}

void readMessages(const std::shared_ptr<Inbox>& inbox, const std::shared_ptr<MessageWriter>& out,
                  int fd) {
  MessageReader reader(fd);
  for (bool end = false; !end;) {
    try {
      readOne(reader, *inbox, *out, end);
    } catch (const std::bad_alloc&) {
      // What was allocated for the message is freed by now; the stream goes on after it (or,
      // when the body could not even be buffered, resynchronizes on the next header).
      out->write(serialize(makeError(nullptr, rpc_error::kInternalError,
                                     "out of memory reading a message; it is skipped")));
    } catch (const std::exception& e) {
      out->write(serialize(makeError(nullptr, rpc_error::kInternalError,
                                     std::string("a message could not be read: ") + e.what())));
    }
  }
  std::lock_guard lock(inbox->mutex);
  inbox->closed = true;
  inbox->ready.notify_one();
}

// A request that fails with a JSON-RPC error.
struct RpcError : std::runtime_error {
  RpcError(int error_code, const std::string& message)
      : std::runtime_error(message), code(error_code) {}
  int code;
};

// The member at `path` of nested objects, or null when any step is missing or not an object.
const json* member(const json& object, std::initializer_list<const char*> path) {
  const json* at = &object;
  for (const char* key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

std::string stringMember(const json& object, std::initializer_list<const char*> path) {
  const json* value = member(object, path);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

std::string requiredUri(const json& params) {
  std::string uri = stringMember(params, {"textDocument", "uri"});
  if (uri.empty()) throw RpcError(rpc_error::kInvalidParams, "textDocument.uri is missing");
  return uri;
}

// The requests answered from the findings: one that arrives while the findings are older than
// the client's last change waits for the analysis that covers it.
bool needsFindings(const std::string& method) {
  return method == "textDocument/diagnostic" || method == "textDocument/codeAction" ||
         method == "textDocument/hover";
}

class Server {
 public:
  Server(std::shared_ptr<MessageWriter> writer, std::shared_ptr<Inbox> inbox)
      : writer_(std::move(writer)), inbox_(std::move(inbox)), analysis_([inbox = inbox_] {
          std::lock_guard lock(inbox->mutex);
          inbox->analysis_finished = true;
          inbox->ready.notify_one();
        }) {}

  // Handles one message (`cancelled`: the client cancelled it while it was queued); returns the
  // exit code once the client said `exit`.
  std::optional<int> handle(const json& message, bool cancelled);

  // When the main loop must start an analysis, if it is not woken before: none while one runs.
  std::optional<Clock::time_point> analysisDue() const {
    return analysis_.busy() ? std::nullopt : due_;
  }
  // Takes a finished analysis's output (publishing it and answering the requests that waited
  // for it) and starts the next analysis when one is due.
  void advance();
  // Stops a running analysis for the exit; false when it did not stop in time.
  bool stopAnalysis() { return analysis_.stop(std::chrono::seconds(2)); }
  int exitCodeAtEndOfInput() const { return state_ == State::kShutDown ? 0 : 1; }

 private:
  enum class State { kUninitialized, kRunning, kShutDown };

  // A request that waits for the analysis of the changes before it.
  struct Waiting {
    json id;
    std::string method;
    json params;
    std::uint64_t generation = 0;
  };

  void startAnalysis();
  void finishAnalysis(AnalysisOutput output);
  void publish(const AnalysisOutput& output);
  void answer(const json& id, const std::string& method, const json& params);
  // Counts a change. An analysis that runs is of an older state: unless a request waits for
  // it, it is cancelled, so that the analysis of the new state starts sooner.
  void changed() {
    ++generation_;
    if (running_generation_ && (waiting_.empty() || waiting_.front().generation > *running_generation_)) {
      analysis_.cancel();
    }
  }

  void send(const json& message) { writer_->write(serialize(message)); }
  void log(int type, const std::string& text) {
    send(makeNotification("window/logMessage", {{"type", type}, {"message", text}}));
  }
  void request(const std::string& method, json params, const std::string& purpose) {
    std::string id = "graphsafe-" + std::to_string(++request_counter_);
    pending_[id] = purpose;
    send(makeRequest(id, method, std::move(params)));
  }
  void schedule(Clock::duration delay) {
    Clock::time_point at = Clock::now() + delay;
    // A change postpones a pending run (debounce); an open or save never delays one.
    if (!due_ || delay > Clock::duration::zero() || at < *due_) due_ = at;
  }
  // `$/logTrace`, when the client asked for traces (initialize's `trace`, `$/setTrace`).
  void trace(const std::string& message, const std::string& verbose) {
    if (trace_ == "off") return;
    json params = {{"message", message}};
    if (trace_ == "verbose" && !verbose.empty()) params["verbose"] = verbose;
    send(makeNotification("$/logTrace", std::move(params)));
  }
  void settingsChanged() {
    settings_.invalidate();
    settings_changed_ = true;
    changed();
  }
  std::string uriOf(const std::string& path) const {
    const Document* document = documents_.findByPath(path);
    return document != nullptr ? document->uri : uriFromPath(path);
  }
  const Document& openDocument(const std::string& uri) const {
    const Document* document = documents_.find(uri);
    if (document == nullptr) {
      throw RpcError(rpc_error::kInvalidParams, "the document is not open: " + uri);
    }
    return *document;
  }
  std::uint32_t requiredOffset(const Document& document, const json* position) const;

  json dispatchRequest(const std::string& method, const json& params);
  void dispatchNotification(const std::string& method, const json& params);
  void handleResponse(const json& message);

  json initialize(const json& params);
  void initialized();
  json pullDiagnostics(const json& params);
  json codeAction(const json& params);
  json hover(const json& params);
  void didOpen(const json& params);
  void didChange(const json& params);
  void didSave(const json& params);
  void didClose(const json& params);
  void didChangeConfiguration(const json& params);

  std::shared_ptr<MessageWriter> writer_;
  std::shared_ptr<Inbox> inbox_;
  State state_ = State::kUninitialized;
  PositionEncoding encoding_ = PositionEncoding::kUtf16;
  bool pull_ = false;
  bool markdown_hover_ = false;
  bool refresh_support_ = false;
  bool watch_files_ = false;
  bool configuration_pull_ = false;
  DocumentStore documents_;
  WorkspaceSettings settings_;
  std::optional<Clock::time_point> due_;
  std::map<std::string, std::vector<Diagnostic>> findings_;  // by URI, as last analyzed
  std::map<std::string, json> items_;                        // by URI, as last reported
  std::map<std::string, std::uint64_t> result_ids_;          // by URI, for the pull model
  std::map<std::string, std::int64_t> published_versions_;   // by URI, the last pushed version
  std::uint64_t next_result_id_ = 0;
  std::uint64_t request_counter_ = 0;
  std::map<std::string, std::string> pending_;  // our requests to the client: id -> purpose
  std::string trace_ = "off";
  std::uint64_t analyses_ = 0;
  // Every change the client makes (a document, the settings, a file on disk) counts one
  // generation; the findings are those of `analyzed_generation_`. Requests that need findings
  // newer than that wait in `waiting_`, answered in order when the analysis covering them ends.
  std::uint64_t generation_ = 0;
  std::uint64_t analyzed_generation_ = 0;
  std::deque<Waiting> waiting_;
  std::optional<std::uint64_t> running_generation_;  // the analysis that runs, if one does
  // Whether the settings changed since the last analysis started (the analysis thread skips
  // an analysis whose inputs and settings are those of the previous one).
  bool settings_changed_ = true;
  // The notices about files that are not open, logged once while they last.
  std::set<std::string> logged_notices_;
  BackgroundAnalysis analysis_;  // last: its thread stops before the members above go
};

std::optional<int> Server::handle(const json& message, bool cancelled) {
  MessageKind kind = classifyMessage(message);
  if (kind == MessageKind::kInvalid) {
    json id = message.is_object() && message.contains("id") ? message["id"] : json(nullptr);
    send(makeError(id, rpc_error::kInvalidRequest,
                   "not a JSON-RPC 2.0 request, notification or response"));
    return std::nullopt;
  }
  if (kind == MessageKind::kResponse) {
    handleResponse(message);
    return std::nullopt;
  }
  const std::string& method = message["method"].get_ref<const std::string&>();
  static const json kNoParams = json::object();
  const json& params =
      message.contains("params") && !message["params"].is_null() ? message["params"] : kNoParams;

  if (kind == MessageKind::kNotification) {
    if (method == "exit") return state_ == State::kShutDown ? 0 : 1;
    if (state_ == State::kUninitialized) return std::nullopt;  // dropped, as the protocol asks
    try {
      dispatchNotification(method, params);
    } catch (const std::exception& e) {
      log(1, "graphsafe: " + method + ": " + e.what());
    }
    return std::nullopt;
  }

  const json& id = message["id"];
  if (cancelled) {
    send(makeError(id, rpc_error::kRequestCancelled, "the request was cancelled"));
    return std::nullopt;
  }
  if (state_ == State::kUninitialized && method != "initialize") {
    send(makeError(id, rpc_error::kServerNotInitialized,
                   "the server is not initialized: send 'initialize' first"));
    return std::nullopt;
  }
  if (state_ == State::kShutDown) {
    send(makeError(id, rpc_error::kInvalidRequest, "the server is shut down: send 'exit'"));
    return std::nullopt;
  }
  if (needsFindings(method) && analyzed_generation_ < generation_) {
    waiting_.push_back({id, method, params, generation_});
    schedule(Clock::duration::zero());  // asked for now: no quiet time
    return std::nullopt;
  }
  answer(id, method, params);
  return std::nullopt;
}

void Server::answer(const json& id, const std::string& method, const json& params) {
  try {
    json result = dispatchRequest(method, params);
    send(makeResponse(id, std::move(result)));
  } catch (const RpcError& e) {
    send(makeError(id, e.code, e.what()));
  } catch (const std::exception& e) {
    send(makeError(id, rpc_error::kInternalError, std::string("internal error: ") + e.what()));
  }
}

json Server::dispatchRequest(const std::string& method, const json& params) {
  if (!params.is_object()) throw RpcError(rpc_error::kInvalidParams, "params must be an object");
  if (method == "initialize") return initialize(params);
  if (method == "shutdown") {
    state_ = State::kShutDown;
    return nullptr;
  }
  if (method == "textDocument/diagnostic") return pullDiagnostics(params);
  if (method == "textDocument/codeAction") return codeAction(params);
  if (method == "textDocument/hover") return hover(params);
  throw RpcError(rpc_error::kMethodNotFound, "method not found: " + method);
}

void Server::dispatchNotification(const std::string& method, const json& params) {
  if (!params.is_object()) return;
  if (method == "initialized") {
    initialized();
  } else if (method == "textDocument/didOpen") {
    didOpen(params);
  } else if (method == "textDocument/didChange") {
    didChange(params);
  } else if (method == "textDocument/didSave") {
    didSave(params);
  } else if (method == "textDocument/didClose") {
    didClose(params);
  } else if (method == "workspace/didChangeConfiguration") {
    didChangeConfiguration(params);
  } else if (method == "workspace/didChangeWatchedFiles") {
    // A configuration file or a source file of the workspace changed on disk.
    bool configuration = false;
    if (const json* changes = member(params, {"changes"}); changes != nullptr && changes->is_array()) {
      for (const json& change : *changes) {
        std::optional<std::string> path = pathFromUri(stringMember(change, {"uri"}));
        configuration = configuration || !path || WorkspaceSettings::isConfigFile(*path);
      }
    }
    if (configuration) settingsChanged();
    changed();
    schedule(Clock::duration::zero());
  } else if (method == "$/setTrace") {
    std::string value = stringMember(params, {"value"});
    if (value == "off" || value == "messages" || value == "verbose") trace_ = value;
  }
  // Anything else (`$/setTrace`, `$/progress`, unknown notifications) is ignored.
}

void Server::handleResponse(const json& message) {
  const json& id = message["id"];
  if (!id.is_string()) return;
  auto it = pending_.find(id.get<std::string>());
  if (it == pending_.end()) return;
  std::string purpose = it->second;
  pending_.erase(it);
  if (purpose == "configuration" && message.contains("result") && message["result"].is_array() &&
      !message["result"].empty()) {
    for (const std::string& warning :
         updateClientSettings(message["result"][0], settings_.client())) {
      log(2, "graphsafe: " + warning);
    }
    settings_changed_ = true;
    changed();
    schedule(Clock::duration::zero());
  }
}

json Server::initialize(const json& params) {
  if (state_ != State::kUninitialized) {
    throw RpcError(rpc_error::kInvalidRequest, "initialize was already received");
  }
  std::vector<std::string_view> offered;
  if (const json* encodings = member(params, {"capabilities", "general", "positionEncodings"});
      encodings != nullptr && encodings->is_array()) {
    for (const json& encoding : *encodings) {
      if (encoding.is_string()) offered.push_back(encoding.get_ref<const std::string&>());
    }
  }
  encoding_ = negotiatePositionEncoding(offered);
  pull_ = member(params, {"capabilities", "textDocument", "diagnostic"}) != nullptr;
  if (const json* formats =
          member(params, {"capabilities", "textDocument", "hover", "contentFormat"});
      formats != nullptr && formats->is_array()) {
    for (const json& format : *formats) markdown_hover_ = markdown_hover_ || format == "markdown";
  }
  const json* refresh =
      member(params, {"capabilities", "workspace", "diagnostics", "refreshSupport"});
  refresh_support_ = refresh != nullptr && refresh->is_boolean() && refresh->get<bool>();
  const json* watch =
      member(params, {"capabilities", "workspace", "didChangeWatchedFiles", "dynamicRegistration"});
  watch_files_ = watch != nullptr && watch->is_boolean() && watch->get<bool>();
  const json* configuration = member(params, {"capabilities", "workspace", "configuration"});
  configuration_pull_ =
      configuration != nullptr && configuration->is_boolean() && configuration->get<bool>();

  std::string root_uri = stringMember(params, {"rootUri"});
  if (const json* folders = member(params, {"workspaceFolders"});
      root_uri.empty() && folders != nullptr && folders->is_array() && !folders->empty()) {
    root_uri = stringMember((*folders)[0], {"uri"});
  }
  if (std::optional<std::string> root = pathFromUri(root_uri)) {
    settings_.setRoot(*root);
  } else if (std::string root_path = stringMember(params, {"rootPath"}); !root_path.empty()) {
    settings_.setRoot(root_path);
  }
  if (const json* options = member(params, {"initializationOptions"})) {
    for (const std::string& warning : updateClientSettings(*options, settings_.client())) {
      log(2, "graphsafe: " + warning);
    }
  }
  if (std::string value = stringMember(params, {"trace"});
      value == "messages" || value == "verbose") {
    trace_ = value;
  }
  state_ = State::kRunning;

  json capabilities = {
      {"positionEncoding", positionEncodingName(encoding_)},
      {"textDocumentSync",
       {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"codeActionProvider", {{"codeActionKinds", json::array({"quickfix", kFixAllKind})}}},
      {"hoverProvider", true},
  };
  if (pull_) {
    capabilities["diagnosticProvider"] = {{"identifier", "graphsafe"},
                                          {"interFileDependencies", true},
                                          {"workspaceDiagnostics", false}};
  }
  return {{"capabilities", std::move(capabilities)},
          {"serverInfo", {{"name", "graphsafe"}, {"version", GRAPHSAFE_VERSION}}}};
}

void Server::initialized() {
  if (watch_files_) {
    json watchers = json::array({{{"globPattern", "**/.graphsafe.yaml"}},
                                 {{"globPattern", "**/.graphsafe.yml"}},
                                 {{"globPattern", "**/pyproject.toml"}},
                                 {{"globPattern", "**/*.{py,pyi,cu,cuh,cpp,cc,cxx,h,hpp,hh,hxx}"}},
                                 {{"globPattern", "**/.gitignore"}}});
    request("client/registerCapability",
            {{"registrations", json::array({{{"id", "graphsafe-configuration-files"},
                                             {"method", "workspace/didChangeWatchedFiles"},
                                             {"registerOptions", {{"watchers", watchers}}}}})}},
            "register");
  }
  if (configuration_pull_) {
    request("workspace/configuration", {{"items", json::array({{{"section", "graphsafe"}}})}},
            "configuration");
  }
  // The workspace is analyzed before any document opens, so that the first one's findings come
  // from lowered files already kept.
  if (!settings_.root().empty() && settings_.client().analyze_workspace) {
    changed();
    schedule(Clock::duration::zero());
  }
}

void Server::didOpen(const json& params) {
  const json* document = member(params, {"textDocument"});
  const json* text = document != nullptr ? member(*document, {"text"}) : nullptr;
  std::string uri = document != nullptr ? stringMember(*document, {"uri"}) : std::string();
  if (uri.empty() || text == nullptr || !text->is_string()) {
    log(2, "graphsafe: didOpen without textDocument.uri and text");
    return;
  }
  const json* version = member(*document, {"version"});
  std::int64_t number =
      version != nullptr && version->is_number_integer() ? version->get<std::int64_t>() : 0;
  if (!documents_.open(uri, stringMember(*document, {"languageId"}), number,
                       text->get<std::string>())) {
    log(3, "graphsafe: not a file:// URI, not analyzed: " + uri);
    return;
  }
  changed();
  schedule(Clock::duration::zero());
}

void Server::didChange(const json& params) {
  std::string uri = stringMember(params, {"textDocument", "uri"});
  const json* version = member(params, {"textDocument", "version"});
  const json* changes = member(params, {"contentChanges"});
  std::int64_t number =
      version != nullptr && version->is_number_integer() ? version->get<std::int64_t>() : 0;
  std::string warning;
  bool changed =
      documents_.change(uri, number, changes != nullptr ? *changes : json(), encoding_, warning);
  if (!warning.empty()) log(2, "graphsafe: " + warning);
  if (changed) {
    this->changed();
    schedule(std::chrono::milliseconds(settings_.client().debounce_ms));
  }
}

void Server::didSave(const json& params) {
  std::string uri = stringMember(params, {"textDocument", "uri"});
  if (std::optional<std::string> path = pathFromUri(uri);
      path && WorkspaceSettings::isConfigFile(*path)) {
    settingsChanged();
  }
  changed();  // the file on disk is the document now: the workspace's other files may see it
  schedule(Clock::duration::zero());
}

void Server::didClose(const json& params) {
  std::string uri = stringMember(params, {"textDocument", "uri"});
  if (documents_.find(uri) == nullptr) return;
  documents_.close(uri);
  findings_.erase(uri);
  items_.erase(uri);
  result_ids_.erase(uri);
  published_versions_.erase(uri);
  if (!pull_) {
    send(makeNotification("textDocument/publishDiagnostics",
                          {{"uri", uri}, {"diagnostics", json::array()}}));
  }
  changed();
  schedule(Clock::duration::zero());  // the files it was called from may change
}

void Server::didChangeConfiguration(const json& params) {
  const json* settings = member(params, {"settings"});
  bool empty =
      settings == nullptr || settings->is_null() || (settings->is_object() && settings->empty());
  if (empty && configuration_pull_) {
    request("workspace/configuration", {{"items", json::array({{{"section", "graphsafe"}}})}},
            "configuration");
  } else if (settings != nullptr) {
    for (const std::string& warning : updateClientSettings(*settings, settings_.client())) {
      log(2, "graphsafe: " + warning);
    }
  }
  settingsChanged();
  schedule(Clock::duration::zero());
}

std::uint32_t Server::requiredOffset(const Document& document, const json* position) const {
  std::optional<LspPosition> parsed = position != nullptr ? parsePosition(*position) : std::nullopt;
  if (!parsed) {
    throw RpcError(rpc_error::kInvalidParams,
                   "a position must be {line, character} with non-negative integers");
  }
  const SourceFile& file = *document.source;
  if (parsed->line >= file.lineCount()) {
    throw RpcError(rpc_error::kInvalidParams, "line " + std::to_string(parsed->line) +
                                                  " is outside the document (" +
                                                  std::to_string(file.lineCount()) + " lines)");
  }
  // A character past the end of its line means the line's end, as the protocol says.
  return offsetOf(file, *parsed, encoding_);
}

json Server::pullDiagnostics(const json& params) {
  std::string uri = requiredUri(params);
  if (documents_.find(uri) == nullptr) return {{"kind", "full"}, {"items", json::array()}};
  std::string result_id = std::to_string(result_ids_[uri]);
  const json* previous = member(params, {"previousResultId"});
  if (previous != nullptr && previous->is_string() && previous->get<std::string>() == result_id) {
    return {{"kind", "unchanged"}, {"resultId", result_id}};
  }
  auto items = items_.find(uri);
  return {{"kind", "full"},
          {"resultId", result_id},
          {"items", items != items_.end() ? items->second : json::array()}};
}

json Server::codeAction(const json& params) {
  std::string uri = requiredUri(params);
  const Document& document = openDocument(uri);
  std::uint32_t begin = requiredOffset(document, member(params, {"range", "start"}));
  std::uint32_t end = requiredOffset(document, member(params, {"range", "end"}));
  if (end < begin) std::swap(begin, end);
  auto findings = findings_.find(uri);
  if (findings == findings_.end()) return json::array();
  return codeActionsFor(uri, findings->second, begin, end, encoding_,
                        [this](const std::string& path) { return uriOf(path); },
                        requestedKinds(member(params, {"context", "only"})));
}

json Server::hover(const json& params) {
  std::string uri = requiredUri(params);
  const Document& document = openDocument(uri);
  std::uint32_t offset = requiredOffset(document, member(params, {"position"}));
  auto findings = findings_.find(uri);
  static const std::vector<Diagnostic> kNone;
  return hoverAt(*document.source, findings != findings_.end() ? findings->second : kNone, offset,
                 markdown_hover_, encoding_);
}

void Server::advance() {
  if (std::optional<AnalysisOutput> output = analysis_.take()) finishAnalysis(std::move(*output));
  if (due_ && Clock::now() >= *due_ && !analysis_.busy()) startAnalysis();
}

void Server::startAnalysis() {
  due_.reset();
  AnalysisInput input;
  input.generation = generation_;
  for (const auto& [uri, document] : documents_.documents()) {
    input.documents.push_back({uri, document.version, document.source});
  }
  std::string first = input.documents.empty() ? std::string() : input.documents.front().source->path();
  std::string config_error;
  input.options = settings_.engineOptions(first, config_error);
  if (!config_error.empty()) {
    send(makeNotification("window/showMessage",
                          {{"type", 1},
                           {"message", "graphsafe: " + config_error +
                                           " (the configuration is not used until it is fixed)"}}));
  }
  if (settings_.client().analyze_workspace) input.workspace_root = settings_.root();
  if (input.documents.empty() && input.workspace_root.empty()) {
    // Nothing to analyze, nothing to report.
    analyzed_generation_ = generation_;
    return;
  }
  if (!input.workspace_root.empty()) {
    input.options.jobs = 0;  // a workspace: every core
    // The command line's C++ unit entries, when the workspace has its cache: the first
    // analysis then parses no C++ unit that `graphsafe check` parsed already (unit_cache.h).
    std::error_code ec;
    std::string cache = input.workspace_root + "/.graphsafe_cache";
    if (std::filesystem::is_directory(cache, ec)) input.options.cache_dir = cache;
  }
  input.settings_changed = settings_changed_;
  settings_changed_ = false;
  running_generation_ = input.generation;
  analysis_.start(std::move(input));
}

void Server::finishAnalysis(AnalysisOutput output) {
  running_generation_.reset();
  if (output.cancelled) {
    settings_changed_ |= output.settings_changed;  // what it was to take in is still to come
    if (!due_) schedule(Clock::duration::zero());   // the change that cancelled it set one
    return;
  }
  if (!output.error.empty()) {
    log(1, "graphsafe: the analysis failed: " + output.error);
    settings_changed_ = true;  // the next one must not be skipped as unchanged
  } else if (!output.unchanged) {
    ++analyses_;
    trace("graphsafe: analysis " + std::to_string(analyses_) + " of " +
              std::to_string(output.files) + " files (" + std::to_string(output.documents.size()) +
              " open)",
          std::to_string(output.took.count()) + " ms");
    publish(output);
  }
  analyzed_generation_ = std::max(analyzed_generation_, output.generation);
  while (!waiting_.empty() && waiting_.front().generation <= analyzed_generation_) {
    Waiting next = std::move(waiting_.front());
    waiting_.pop_front();
    answer(next.id, next.method, next.params);
  }
  if (!waiting_.empty()) schedule(Clock::duration::zero());
}

void Server::publish(const AnalysisOutput& output) {
  const RunResult& result = output.result;
  std::map<std::string, std::vector<Diagnostic>> by_path;
  for (const Diagnostic& diagnostic : result.diagnostics) {
    if (diagnostic.file) by_path[diagnostic.path()].push_back(diagnostic);
  }
  std::set<std::string> open_paths;
  for (const DocumentSnapshot& document : output.documents) {
    open_paths.insert(document.source->path());
  }
  std::map<std::string, std::vector<const Notice*>> notices;
  std::set<std::string> logged;
  for (const Notice& notice : result.notices) {
    if (open_paths.contains(notice.path)) {
      notices[notice.path].push_back(&notice);
      continue;
    }
    // About a file that is not open (or the whole run): logged once, not after every edit.
    std::string text = (notice.path.empty() ? "" : notice.path + ": ") + notice.message;
    if (!logged_notices_.contains(text)) log(3, "graphsafe: " + text);
    logged.insert(std::move(text));
  }
  logged_notices_ = std::move(logged);

  auto uri_of = [this](const std::string& path) { return uriOf(path); };
  bool any_changed = false;
  for (const DocumentSnapshot& document : output.documents) {
    const std::string& uri = document.uri;
    // A document closed while it was analyzed gets nothing: its diagnostics were cleared.
    if (documents_.find(uri) == nullptr) continue;
    const std::string& path = document.source->path();
    std::vector<Diagnostic>& found = findings_[uri];
    found = std::move(by_path[path]);
    json items = json::array();
    for (const Diagnostic& diagnostic : found) {
      items.push_back(toLspDiagnostic(diagnostic, encoding_, uri_of));
    }
    for (const Notice* notice : notices[path]) {
      items.push_back(noticeToLspDiagnostic(*notice, *document.source, encoding_));
    }
    auto previous = items_.find(uri);
    bool changed = previous == items_.end() || previous->second != items;
    if (changed) {
      any_changed = true;
      result_ids_[uri] = ++next_result_id_;
    }
    // Pushed when they changed, and for every new version of the document, so that a client
    // knows its diagnostics are current. The version is the one analyzed, which the client may
    // have edited since: the ranges belong to that version.
    auto published = published_versions_.find(uri);
    bool new_version =
        published == published_versions_.end() || published->second != document.version;
    if (!pull_ && (changed || new_version)) {
      send(makeNotification("textDocument/publishDiagnostics",
                            {{"uri", uri}, {"version", document.version}, {"diagnostics", items}}));
      published_versions_[uri] = document.version;
    }
    items_[uri] = std::move(items);
  }
  if (pull_ && any_changed && refresh_support_) {
    request("workspace/diagnostic/refresh", nullptr, "refresh");
  }
}

}  // namespace

int runLanguageServer(int input_fd, int output_fd) {
  // A client that goes away must end the server through EOF, not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  auto inbox = std::make_shared<Inbox>();
  auto writer = std::make_shared<MessageWriter>(output_fd);
  // The reader blocks in read(); it is detached so that `exit` never waits for more input.
  std::thread([inbox, writer, input_fd] { readMessages(inbox, writer, input_fd); }).detach();

  Server server(writer, inbox);
  // The exit code, once the client said `exit` or closed the input. An analysis that does not
  // stop in time (one C++ unit runs to its own time bound) does not hold the exit up: the
  // process ends without unwinding, all it wrote already written.
  auto end = [&server](int code) {
    if (!server.stopAnalysis()) std::_Exit(code);
    return code;
  };
  for (;;) {
    server.advance();
    std::optional<Clock::time_point> due = server.analysisDue();
    json message;
    bool have_message = false;
    bool cancelled = false;
    bool closed = false;
    {
      std::unique_lock lock(inbox->mutex);
      auto ready = [&] {
        return !inbox->messages.empty() || inbox->closed || inbox->analysis_finished;
      };
      if (due) {
        inbox->ready.wait_until(lock, *due, ready);
      } else {
        inbox->ready.wait(lock, ready);
      }
      inbox->analysis_finished = false;
      if (!inbox->messages.empty()) {
        message = inbox->pop(cancelled).message;
        have_message = true;
      } else {
        closed = inbox->closed;
      }
    }
    if (have_message) {
      std::optional<int> code;
      try {
        code = server.handle(message, cancelled);
      } catch (const std::bad_alloc&) {
        // handle() answers its own failures; this is one while answering (building the error).
      }
      if (code) return end(*code);
    } else if (closed) {
      return end(server.exitCodeAtEndOfInput());
    }
  }
}

}  // namespace graphsafe::lsp
