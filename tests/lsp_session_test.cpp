// Scripted JSON-RPC sessions against the `graphsafe lsp` binary over pipes, as an editor would
// drive it: lifecycle, position encodings, push and pull diagnostics, incremental changes,
// cross-file updates, quick fixes, hover, and malformed input that must get errors while the
// server keeps going.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "tests/lsp_client.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using nlohmann::json;
using testing::LspClient;
using testing::TempTree;

// Line 5 has a two-byte and a four-byte character before the hazard, so UTF-8, UTF-16 and
// byte columns differ: `x.sum().item()` starts at byte 22, UTF-16 unit 19.
constexpr const char* kBug =
    "import torch\n"
    "\n"
    "x = torch.ones(4, device=\"cuda\")\n"
    "g = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g):\n"
    "    s = \"\xc3\xa9\xf0\x9f\x98\x80\"; y = x.sum().item()\n";

constexpr const char* kHelpers =
    "def helper(t):\n"
    "    return t.item()\n";

constexpr const char* kMain =
    "import torch\n"
    "from helpers import helper\n"
    "\n"
    "x = torch.ones(4, device=\"cuda\")\n"
    "g = torch.cuda.CUDAGraph()\n"
    "with torch.cuda.graph(g):\n"
    "    y = helper(x)\n";

json position(int line, int character) {
  return {{"line", line}, {"character", character}};
}

json range(int line, int start, int end_line, int end) {
  return {{"start", position(line, start)}, {"end", position(end_line, end)}};
}

class LspSessionTest : public ::testing::Test {
 protected:
  std::string uri(const std::string& name) const { return "file://" + tree_.path(name); }

  // initialize + initialized; returns the initialize result.
  json start(LspClient& client, json capabilities) {
    EXPECT_TRUE(client.started());
    int id = client.request("initialize", {{"processId", nullptr},
                                           {"rootUri", "file://" + tree_.path()},
                                           {"capabilities", std::move(capabilities)}});
    std::optional<json> reply = client.response(id);
    EXPECT_TRUE(reply && reply->contains("result")) << (reply ? reply->dump() : "no reply");
    client.notify("initialized", json::object());
    return reply && reply->contains("result") ? (*reply)["result"] : json();
  }

  void open(LspClient& client, const std::string& name, const std::string& text) {
    tree_.write(name, text);
    client.notify(
        "textDocument/didOpen",
        {{"textDocument",
          {{"uri", uri(name)}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  }

  std::optional<json> diagnosticsFor(LspClient& client, const std::string& name) {
    std::string wanted = uri(name);
    return client.receiveUntil([&](const json& m) {
      return m.value("method", "") == "textDocument/publishDiagnostics" &&
             m["params"]["uri"] == wanted;
    });
  }

  void finish(LspClient& client) {
    int id = client.request("shutdown", nullptr);
    std::optional<json> reply = client.response(id);
    ASSERT_TRUE(reply);
    EXPECT_TRUE((*reply)["result"].is_null());
    client.notify("exit", nullptr);
    EXPECT_EQ(client.waitForExit(), 0);
  }

  TempTree tree_;
};

TEST_F(LspSessionTest, PushDiagnosticsCodeActionsAndHover) {
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  json result = start(client, {{"general", {{"positionEncodings", {"utf-16"}}}}});
  EXPECT_EQ(result["capabilities"]["positionEncoding"], "utf-16");
  EXPECT_EQ(result["capabilities"]["textDocumentSync"]["change"], 2);
  EXPECT_EQ(result["capabilities"]["hoverProvider"], true);
  EXPECT_FALSE(result["capabilities"].contains("diagnosticProvider"));
  EXPECT_EQ(result["serverInfo"]["name"], "graphsafe");

  open(client, "bug.py", kBug);
  std::optional<json> published = diagnosticsFor(client, "bug.py");
  ASSERT_TRUE(published);
  const json& params = (*published)["params"];
  EXPECT_EQ(params["version"], 1);
  ASSERT_EQ(params["diagnostics"].size(), 1u) << params.dump(2);
  const json& diagnostic = params["diagnostics"][0];
  EXPECT_EQ(diagnostic["code"], "GS401");
  EXPECT_EQ(diagnostic["source"], "graphsafe");
  EXPECT_EQ(diagnostic["severity"], 1);
  EXPECT_NE(diagnostic["codeDescription"]["href"].get<std::string>().find("GS401"),
            std::string::npos);
  EXPECT_EQ(diagnostic["range"], range(5, 19, 5, 33));  // UTF-16 units
  ASSERT_FALSE(diagnostic["relatedInformation"].empty());
  const json& site = diagnostic["relatedInformation"][0];
  EXPECT_EQ(site["location"]["uri"], uri("bug.py"));
  EXPECT_EQ(site["location"]["range"]["start"], position(4, 5));
  EXPECT_NE(site["message"].get<std::string>().find("capture"), std::string::npos);

  // Quick fix: suppress on this line.
  int id = client.request("textDocument/codeAction",
                          {{"textDocument", {{"uri", uri("bug.py")}}},
                           {"range", range(5, 20, 5, 20)},
                           {"context", {{"diagnostics", json::array({diagnostic})}}}});
  std::optional<json> actions = client.response(id);
  ASSERT_TRUE(actions);
  const json* suppress = nullptr;
  for (const json& action : (*actions)["result"]) {
    if (action["title"] == "Suppress GS401 on this line") suppress = &action;
  }
  ASSERT_NE(suppress, nullptr) << actions->dump(2);
  EXPECT_EQ((*suppress)["kind"], "quickfix");
  const json& edits = (*suppress)["edit"]["changes"][uri("bug.py")];
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0]["newText"], "  # graphsafe: ignore[GS401]");
  EXPECT_EQ(edits[0]["range"], range(5, 33, 5, 33));

  // Hover over the finding shows the rule's page; over a suppression code, too.
  id = client.request("textDocument/hover",
                      {{"textDocument", {{"uri", uri("bug.py")}}}, {"position", position(5, 25)}});
  std::optional<json> hover = client.response(id);
  ASSERT_TRUE(hover);
  std::string text = (*hover)["result"]["contents"]["value"];
  EXPECT_NE(text.find("GS401"), std::string::npos);
  EXPECT_NE(text.find("host-sync"), std::string::npos);

  // Apply the suppression as the client would (incremental change): the finding goes away.
  client.notify("textDocument/didChange",
                {{"textDocument", {{"uri", uri("bug.py")}, {"version", 2}}},
                 {"contentChanges",
                  json::array({{{"range", edits[0]["range"]}, {"text", edits[0]["newText"]}}})}});
  published = diagnosticsFor(client, "bug.py");
  ASSERT_TRUE(published);
  EXPECT_EQ((*published)["params"]["version"], 2);
  EXPECT_TRUE((*published)["params"]["diagnostics"].empty()) << published->dump(2);

  id = client.request("textDocument/hover",
                      {{"textDocument", {{"uri", uri("bug.py")}}}, {"position", position(5, 55)}});
  hover = client.response(id);
  ASSERT_TRUE(hover);
  ASSERT_TRUE((*hover)["result"].is_object()) << hover->dump();
  EXPECT_NE((*hover)["result"]["contents"]["value"].get<std::string>().find("host-sync"),
            std::string::npos);

  // Undo it with a second incremental change: the finding is back.
  client.notify(
      "textDocument/didChange",
      {{"textDocument", {{"uri", uri("bug.py")}, {"version", 3}}},
       {"contentChanges", json::array({{{"range", range(5, 33, 5, 61)}, {"text", ""}}})}});
  published = diagnosticsFor(client, "bug.py");
  ASSERT_TRUE(published);
  EXPECT_EQ((*published)["params"]["diagnostics"].size(), 1u);

  finish(client);
}

TEST_F(LspSessionTest, FixAllAppliesEverySafeFixOfTheDocument) {
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  json result = start(client, json::object());
  EXPECT_NE(result["capabilities"]["codeActionProvider"]["codeActionKinds"].dump().find(
                "source.fixAll.graphsafe"),
            std::string::npos);
  const std::string kept =
      "import torch\n"
      "x = torch.zeros(1, device=\"cuda\")\n"
      "g = torch.cuda.CUDAGraph()\n"
      "with torch.cuda.graph(g):\n"
      "    y = x * 2\n"
      "    z = x + 1\n"
      "ys, zs = [], []\n"
      "for i in range(3):\n"
      "    g.replay()\n"
      "    ys.append(y)\n"
      "    zs.append(z)\n";
  open(client, "kept.py", kept);
  std::optional<json> published = diagnosticsFor(client, "kept.py");
  ASSERT_TRUE(published);
  // On save, editors ask for source.fixAll only: one action with both clones, no quick fixes.
  int id = client.request("textDocument/codeAction",
                          {{"textDocument", {{"uri", uri("kept.py")}}},
                           {"range", range(0, 0, 0, 0)},
                           {"context", {{"diagnostics", json::array()},
                                        {"only", json::array({"source.fixAll"})}}}});
  std::optional<json> actions = client.response(id);
  ASSERT_TRUE(actions);
  ASSERT_EQ((*actions)["result"].size(), 1u) << actions->dump(2);
  const json& fix_all = (*actions)["result"][0];
  EXPECT_EQ(fix_all["kind"], "source.fixAll.graphsafe");
  EXPECT_EQ(fix_all["diagnostics"].size(), 2u);
  const json& edits = fix_all["edit"]["changes"][uri("kept.py")];
  ASSERT_EQ(edits.size(), 2u) << fix_all.dump(2);
  EXPECT_EQ(edits[0]["newText"], ".clone()");
  EXPECT_EQ(edits[0]["range"], range(9, 15, 9, 15));
  EXPECT_EQ(edits[1]["range"], range(10, 15, 10, 15));
  // Asked for quick fixes only, there is no fix-all action.
  id = client.request("textDocument/codeAction",
                      {{"textDocument", {{"uri", uri("kept.py")}}},
                       {"range", range(9, 15, 9, 15)},
                       {"context", {{"diagnostics", json::array()},
                                    {"only", json::array({"quickfix"})}}}});
  actions = client.response(id);
  ASSERT_TRUE(actions);
  for (const json& action : (*actions)["result"]) EXPECT_EQ(action["kind"], "quickfix");
  EXPECT_FALSE((*actions)["result"].empty());
  finish(client);
}

TEST_F(LspSessionTest, Utf8PositionsWhenOffered) {
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  json result = start(client, {{"general", {{"positionEncodings", {"utf-16", "utf-8"}}}}});
  EXPECT_EQ(result["capabilities"]["positionEncoding"], "utf-8");
  open(client, "bug.py", kBug);
  std::optional<json> published = diagnosticsFor(client, "bug.py");
  ASSERT_TRUE(published);
  ASSERT_EQ((*published)["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ((*published)["params"]["diagnostics"][0]["range"], range(5, 22, 5, 36));
  finish(client);
}

TEST_F(LspSessionTest, PullDiagnostics) {
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  json result =
      start(client, {{"textDocument", {{"diagnostic", {{"dynamicRegistration", false}}}}}});
  ASSERT_TRUE(result["capabilities"].contains("diagnosticProvider"));
  EXPECT_EQ(result["capabilities"]["diagnosticProvider"]["interFileDependencies"], true);
  open(client, "bug.py", kBug);
  int id = client.request("textDocument/diagnostic", {{"textDocument", {{"uri", uri("bug.py")}}}});
  std::optional<json> report = client.response(id);
  ASSERT_TRUE(report);
  EXPECT_EQ((*report)["result"]["kind"], "full");
  ASSERT_EQ((*report)["result"]["items"].size(), 1u);
  EXPECT_EQ((*report)["result"]["items"][0]["code"], "GS401");
  std::string result_id = (*report)["result"]["resultId"];

  id = client.request("textDocument/diagnostic", {{"textDocument", {{"uri", uri("bug.py")}}},
                                                  {"previousResultId", result_id}});
  report = client.response(id);
  ASSERT_TRUE(report);
  EXPECT_EQ((*report)["result"]["kind"], "unchanged");

  // A change, then a pull right away: the answer reflects the change (no stale result).
  client.notify("textDocument/didChange",
                {{"textDocument", {{"uri", uri("bug.py")}, {"version", 2}}},
                 {"contentChanges", json::array({{{"text", "import torch\n"}}})}});
  id = client.request("textDocument/diagnostic", {{"textDocument", {{"uri", uri("bug.py")}}},
                                                  {"previousResultId", result_id}});
  report = client.response(id);
  ASSERT_TRUE(report);
  EXPECT_EQ((*report)["result"]["kind"], "full");
  EXPECT_TRUE((*report)["result"]["items"].empty());
  // Nothing is pushed in the pull model.
  for (const json& message : client.skipped()) {
    EXPECT_NE(message.value("method", ""), "textDocument/publishDiagnostics");
  }
  finish(client);
}

TEST_F(LspSessionTest, EditingTheCallerUpdatesTheCallee) {
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  start(client, json::object());
  open(client, "helpers.py", kHelpers);
  open(client, "main.py", kMain);
  // helpers.py alone has no region; with main.py open, its .item() is reached from one.
  std::optional<json> published = client.receiveUntil([&](const json& m) {
    return m.value("method", "") == "textDocument/publishDiagnostics" &&
           m["params"]["uri"] == uri("helpers.py") && !m["params"]["diagnostics"].empty();
  });
  ASSERT_TRUE(published);
  const json& diagnostic = (*published)["params"]["diagnostics"][0];
  EXPECT_EQ(diagnostic["code"], "GS401");
  ASSERT_GE(diagnostic["relatedInformation"].size(), 2u);
  EXPECT_EQ(diagnostic["relatedInformation"][0]["location"]["uri"], uri("main.py"));
  EXPECT_EQ(diagnostic["relatedInformation"][1]["location"]["range"]["start"], position(6, 8));

  // Remove the call in main.py: helpers.py's finding goes away.
  client.notify(
      "textDocument/didChange",
      {{"textDocument", {{"uri", uri("main.py")}, {"version", 2}}},
       {"contentChanges", json::array({{{"range", range(6, 8, 6, 17)}, {"text", "x + 1"}}})}});
  published = diagnosticsFor(client, "helpers.py");
  ASSERT_TRUE(published);
  EXPECT_TRUE((*published)["params"]["diagnostics"].empty()) << published->dump(2);
  finish(client);
}

// The workspace is analyzed, not only the open documents: a helper opened alone shows what its
// callers on disk give it, as `graphsafe check` does; an unsaved caller counts as the client
// holds it; a caller changed on disk counts once the client says so.
TEST_F(LspSessionTest, AHelperOpenedAloneGetsTheFindingsItsCallersOnDiskGiveIt) {
  tree_.write("main.py", kMain);
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  start(client, json::object());
  open(client, "helpers.py", kHelpers);
  std::optional<json> published = diagnosticsFor(client, "helpers.py");
  ASSERT_TRUE(published);
  ASSERT_EQ((*published)["params"]["diagnostics"].size(), 1u) << published->dump(2);
  const json& diagnostic = (*published)["params"]["diagnostics"][0];
  EXPECT_EQ(diagnostic["code"], "GS401");
  EXPECT_EQ(diagnostic["range"]["start"], position(1, 11));
  ASSERT_GE(diagnostic["relatedInformation"].size(), 2u);
  EXPECT_EQ(diagnostic["relatedInformation"][0]["location"]["uri"], uri("main.py"));

  // The same finding from the command line.
  std::string out = tree_.path("check.json");
  std::string command = std::string("cd '") + tree_.path() + "' && '" + GRAPHSAFE_BINARY +
                        "' check --no-cache --format json . >'" + out + "' 2>/dev/null";
  ASSERT_EQ(WEXITSTATUS(std::system(command.c_str())), 1);
  json checked = json::parse(tree_.read("check.json"));
  ASSERT_EQ(checked["diagnostics"].size(), 1u);
  EXPECT_EQ(checked["diagnostics"][0]["rule"], "GS401");
  EXPECT_EQ(checked["diagnostics"][0]["path"], "helpers.py");
  EXPECT_EQ(checked["diagnostics"][0]["range"]["start"]["line"], 2);

  // main.py opened with an unsaved edit that drops the call: the buffer wins over the disk.
  std::string edited = kMain;
  edited.replace(edited.find("helper(x)"), 9, "x + 1");
  client.notify("textDocument/didOpen",
                {{"textDocument",
                  {{"uri", uri("main.py")}, {"languageId", "python"}, {"version", 1},
                   {"text", edited}}}});
  published = diagnosticsFor(client, "helpers.py");
  ASSERT_TRUE(published);
  EXPECT_TRUE((*published)["params"]["diagnostics"].empty()) << published->dump(2);

  // Closed without saving: the file on disk counts again.
  client.notify("textDocument/didClose", {{"textDocument", {{"uri", uri("main.py")}}}});
  published = client.receiveUntil([&](const json& m) {
    return m.value("method", "") == "textDocument/publishDiagnostics" &&
           m["params"]["uri"] == uri("helpers.py") && !m["params"]["diagnostics"].empty();
  });
  ASSERT_TRUE(published);

  // Changed on disk (a checkout): seen once the client reports the change.
  tree_.write("main.py", edited);
  client.notify("workspace/didChangeWatchedFiles",
                {{"changes", json::array({{{"uri", uri("main.py")}, {"type", 2}}})}});
  published = diagnosticsFor(client, "helpers.py");
  ASSERT_TRUE(published);
  EXPECT_TRUE((*published)["params"]["diagnostics"].empty()) << published->dump(2);
  finish(client);
}

TEST_F(LspSessionTest, WithAnalyzeWorkspaceOffOnlyOpenDocumentsAreAnalyzed) {
  tree_.write("main.py", kMain);
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  start(client, json::object());
  client.notify("workspace/didChangeConfiguration",
                {{"settings", {{"graphsafe", {{"analyzeWorkspace", false}}}}}});
  open(client, "helpers.py", kHelpers);
  std::optional<json> published = diagnosticsFor(client, "helpers.py");
  ASSERT_TRUE(published);
  EXPECT_TRUE((*published)["params"]["diagnostics"].empty()) << published->dump(2);

  // A wrong value is a warning, and the setting stays as it was.
  client.notify("workspace/didChangeConfiguration",
                {{"settings", {{"graphsafe", {{"analyzeWorkspace", "yes"}}}}}});
  std::optional<json> warning = client.receiveUntil([](const json& m) {
    return m.value("method", "") == "window/logMessage" &&
           m["params"]["message"].get<std::string>().find("analyzeWorkspace") != std::string::npos;
  });
  ASSERT_TRUE(warning);
  finish(client);
}

// The workspace is analyzed off the main loop: while a slow analysis runs, the server answers
// what needs no findings at once, and `exit` does not wait for the analysis to end.
TEST_F(LspSessionTest, ASlowWorkspaceAnalysisNeitherBlocksRequestsNorTheExit) {
  // 450 functions that each call all 450, reached from one capture: seconds of type evaluation.
  std::string slow = "import torch\nx = torch.ones(4, device='cuda')\n";
  for (int i = 0; i < 450; ++i) {
    slow += "def f" + std::to_string(i) + "(t):\n";
    for (int j = 0; j < 450; ++j) slow += "    t = f" + std::to_string(j) + "(t)\n";
    slow += "    return t.item()\n";
  }
  slow += "g = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    y = f0(x)\n";
  tree_.write("slow.py", slow);
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  json capabilities = json::object();
  EXPECT_TRUE(client.started());
  int id = client.request("initialize", {{"processId", nullptr},
                                         {"rootUri", "file://" + tree_.path()},
                                         {"capabilities", capabilities},
                                         {"trace", "messages"}});
  ASSERT_TRUE(client.response(id));
  client.notify("initialized", json::object());  // starts the workspace's analysis
  open(client, "bug.py", kBug);  // cancels it (at its next file) and starts the next
  // Into the analysis's long part: the checks of slow.py, which have no cancellation point.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  id = client.request("graphsafe/unknownMethod", json::object());
  std::optional<json> answer = client.response(id);
  ASSERT_TRUE(answer);
  EXPECT_EQ((*answer)["error"]["code"], -32601);
  for (const json& message : client.skipped()) {
    EXPECT_NE(message.value("method", ""), "$/logTrace") << "answered only after an analysis";
  }
  id = client.request("shutdown", nullptr);
  ASSERT_TRUE(client.response(id));
  auto exit_sent = std::chrono::steady_clock::now();
  client.notify("exit", nullptr);
  EXPECT_EQ(client.waitForExit(std::chrono::seconds(8)), 0);
  for (const json& message : client.skipped()) {
    EXPECT_NE(message.value("method", ""), "$/logTrace") << "the exit waited for the analysis";
  }
  RecordProperty("exit_ms", std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::steady_clock::now() - exit_sent)
                                               .count()));
}

TEST_F(LspSessionTest, ConfigurationChangesArePickedUp) {
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  start(client, json::object());
  open(client, "bug.py", kBug);
  std::optional<json> published = diagnosticsFor(client, "bug.py");
  ASSERT_TRUE(published);
  EXPECT_EQ((*published)["params"]["diagnostics"].size(), 1u);

  client.notify("workspace/didChangeConfiguration",
                {{"settings", {{"graphsafe", {{"ignore", {"GS4"}}}}}}});
  published = diagnosticsFor(client, "bug.py");
  ASSERT_TRUE(published);
  EXPECT_TRUE((*published)["params"]["diagnostics"].empty());

  client.notify("workspace/didChangeConfiguration",
                {{"settings", {{"graphsafe", {{"ignore", json::array()}}}}}});
  published = diagnosticsFor(client, "bug.py");
  ASSERT_TRUE(published);
  EXPECT_EQ((*published)["params"]["diagnostics"].size(), 1u);

  // The workspace's .graphsafe.yaml, changed on disk.
  tree_.write(".graphsafe.yaml", "ignore: [GS401]\n");
  client.notify("workspace/didChangeWatchedFiles",
                {{"changes", json::array({{{"uri", uri(".graphsafe.yaml")}, {"type", 1}}})}});
  published = diagnosticsFor(client, "bug.py");
  ASSERT_TRUE(published);
  EXPECT_TRUE((*published)["params"]["diagnostics"].empty());
  finish(client);
}

TEST_F(LspSessionTest, MalformedInputGetsErrorsAndTheServerKeepsGoing) {
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  ASSERT_TRUE(client.started());

  // A request before initialize.
  int id = client.request("textDocument/hover",
                          {{"textDocument", {{"uri", uri("a.py")}}}, {"position", position(0, 0)}});
  std::optional<json> reply = client.response(id);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32002);

  start(client, json::object());

  // Not JSON.
  client.sendBody("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ");
  reply = client.receiveUntil([](const json& m) { return m.contains("error"); });
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32700);
  EXPECT_TRUE((*reply)["id"].is_null());

  // A header block without Content-Length, then garbage with no header at all.
  client.sendRaw("Content-Type: application/json\r\n\r\n");
  reply = client.receiveUntil([](const json& m) { return m.contains("error"); });
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32700);
  client.sendRaw("Content-Length: twelve\r\n\r\n");
  reply = client.receiveUntil([](const json& m) { return m.contains("error"); });
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32700);

  // Valid JSON that is not a request.
  client.sendBody("[1, 2, 3]");
  reply = client.receiveUntil([](const json& m) { return m.contains("error"); });
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32600);
  client.sendBody(std::string(1000, '[') + std::string(1000, ']'));
  reply = client.receiveUntil([](const json& m) { return m.contains("error"); });
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32600);

  // An unknown method; an unknown notification gets nothing.
  client.notify("graphsafe/noSuchNotification", json::object());
  id = client.request("graphsafe/noSuchMethod", json::object());
  reply = client.response(id);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32601);

  // Wrong params, positions out of the document, a document that is not open.
  open(client, "bug.py", kBug);
  ASSERT_TRUE(diagnosticsFor(client, "bug.py"));
  id = client.request("textDocument/hover",
                      {{"textDocument", {{"uri", uri("bug.py")}}}, {"position", position(500, 0)}});
  reply = client.response(id);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32602);
  id = client.request("textDocument/hover", {{"textDocument", {{"uri", uri("bug.py")}}},
                                             {"position", {{"line", -1}, {"character", "x"}}}});
  reply = client.response(id);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32602);
  id = client.request("textDocument/codeAction", {{"textDocument", {{"uri", uri("bug.py")}}},
                                                  {"range", range(0, 0, 9999, 0)}});
  reply = client.response(id);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32602);
  id = client.request("textDocument/codeAction",
                      {{"textDocument", {{"uri", uri("nope.py")}}}, {"range", range(0, 0, 0, 0)}});
  reply = client.response(id);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32602);
  id = client.request("textDocument/hover", json::object());
  reply = client.response(id);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32602);

  // A change whose range lies past the end is clamped (the protocol's rule), not fatal.
  client.notify("textDocument/didChange",
                {{"textDocument", {{"uri", uri("bug.py")}, {"version", 2}}},
                 {"contentChanges",
                  json::array({{{"range", range(900, 0, 900, 5)}, {"text", "\nz = 1\n"}}})}});
  std::optional<json> published = diagnosticsFor(client, "bug.py");
  ASSERT_TRUE(published);
  EXPECT_EQ((*published)["params"]["diagnostics"].size(), 1u);

  // A second initialize is an error; the server still answers afterwards.
  id = client.request("initialize", {{"capabilities", json::object()}});
  reply = client.response(id);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32600);

  // After shutdown, requests are refused; exit ends the server with 0.
  id = client.request("shutdown", nullptr);
  ASSERT_TRUE(client.response(id));
  id = client.request("textDocument/hover",
                      {{"textDocument", {{"uri", uri("bug.py")}}}, {"position", position(0, 0)}});
  reply = client.response(id);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["error"]["code"], -32600);
  client.notify("exit", nullptr);
  EXPECT_EQ(client.waitForExit(), 0);
}

TEST_F(LspSessionTest, ExitWithoutShutdownAndEndOfInput) {
  {
    LspClient client(GRAPHSAFE_BINARY, tree_.path());
    start(client, json::object());
    client.notify("exit", nullptr);
    EXPECT_EQ(client.waitForExit(), 1);
  }
  {
    LspClient client(GRAPHSAFE_BINARY, tree_.path());
    start(client, json::object());
    client.sendRaw("Content-Length: 100\r\n\r\n{\"jsonrpc\"");  // cut off mid-body
    client.closeInput();
    EXPECT_EQ(client.waitForExit(), 1);
  }
}

TEST_F(LspSessionTest, CancelledRequestsAreAnsweredWithRequestCancelled) {
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  start(client, json::object());
  // The cancellation is read before the server gets to the request, as both are sent at once.
  std::string hover =
      json{{"jsonrpc", "2.0"},
           {"id", 500},
           {"method", "textDocument/hover"},
           {"params", {{"textDocument", {{"uri", uri("a.py")}}}, {"position", position(0, 0)}}}}
          .dump();
  std::string cancel =
      json{{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", 500}}}}.dump();
  // A slow request first keeps the main loop busy while both arrive.
  open(client, "bug.py", kBug);
  client.sendRaw("Content-Length: " + std::to_string(hover.size()) + "\r\n\r\n" + hover +
                 "Content-Length: " + std::to_string(cancel.size()) + "\r\n\r\n" + cancel);
  std::optional<json> reply = client.response(500);
  ASSERT_TRUE(reply);
  // Either answer is correct: cancelled, or answered before the cancellation was seen.
  if (reply->contains("error")) {
    EXPECT_TRUE((*reply)["error"]["code"] == -32800 || (*reply)["error"]["code"] == -32602);
  }
  finish(client);
}

TEST_F(LspSessionTest, AnOversizedContentLengthIsRefusedAndTheNextMessageAnswered) {
  LspClient client(GRAPHSAFE_BINARY, tree_.path());
  start(client, json::object());
  // 10 GiB declared, nothing like it sent: the server must not wait for the body.
  client.sendRaw("Content-Length: 10737418240\r\n\r\n");
  int id = client.request("shutdown", nullptr);
  std::optional<json> refused =
      client.receiveUntil([](const json& m) { return m.contains("error") && m["id"].is_null(); });
  ASSERT_TRUE(refused);
  EXPECT_EQ((*refused)["error"]["code"], -32600);
  EXPECT_NE((*refused)["error"]["message"].get<std::string>().find("10737418240"),
            std::string::npos);
  std::optional<json> logged = client.notification("window/logMessage");
  ASSERT_TRUE(logged);
  EXPECT_EQ((*logged)["params"]["type"], 1);
  std::optional<json> reply = client.response(id);
  ASSERT_TRUE(reply) << "the message after the refused header was swallowed";
  EXPECT_TRUE((*reply)["result"].is_null());
  client.notify("exit", nullptr);
  EXPECT_EQ(client.waitForExit(), 0);
}

TEST_F(LspSessionTest, HugeMessagesUnderAMemoryLimitGetErrorsAndTheServerLives) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make address-space limits and "
                  "resident-size bounds meaningless";
#endif
  // `ulimit -v 2000000`, as the reproduction has it.
  LspClient client(GRAPHSAFE_BINARY, tree_.path(), 2'000'000);
  start(client, json::object());
  auto is_error = [](const json& m) { return m.contains("error") && !m.contains("method"); };

  // 150 MB in one message: over the size limit, refused, and its body skipped in bounded
  // memory up to the next message's header, which follows it directly.
  std::string huge = R"({"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"text":")" +
                     std::string(150'000'000, 'a') + R"("}})";
  client.sendBody(huge);
  huge = std::string();
  std::optional<json> reply = client.receiveUntil(is_error, std::chrono::milliseconds(60'000));
  ASSERT_TRUE(reply) << "no error for the 150 MB message";
  EXPECT_TRUE((*reply)["id"].is_null());

  // 60 MB, under the size limit, of twenty million JSON values: it would take gigabytes once
  // parsed, and is refused before.
  std::string many = R"({"jsonrpc":"2.0","id":8,"method":"graphsafe/none","params":[)";
  many.reserve(60'000'100);
  while (many.size() < 60'000'000) many += "[],";
  many += "[]]}";
  client.sendBody(many);
  many = std::string();
  reply = client.receiveUntil(is_error, std::chrono::milliseconds(120'000));
  ASSERT_TRUE(reply) << "no error for the 60 MB message";
  EXPECT_EQ((*reply)["error"]["code"], -32600) << reply->dump();

  // Still serving.
  open(client, "bug.py", kBug);
  std::optional<json> published = diagnosticsFor(client, "bug.py");
  ASSERT_TRUE(published);
  EXPECT_EQ((*published)["params"]["diagnostics"].size(), 1u);
  finish(client);
}

}  // namespace
}  // namespace graphsafe
