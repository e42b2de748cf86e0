// The language server under load, as an editor drives it while someone types fast: 10,000
// didChange notifications in a burst, with hover and code-action requests interleaved. The server
// must not crash, must answer every request, must not grow without bound (its RSS after the burst
// is compared with its RSS after a warm-up), and its final diagnostics must equal those of a fresh
// `graphsafe check` of the final text. Then its limits: a million cancellations, a client that
// never reads, and 50,000 requests after one change, answered from one analysis.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "tests/lsp_client.h"
#include "tests/temp_tree.h"

namespace graphsafe {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// `graphsafe lsp` in a child process, with a thread that reads everything it says.
class ServerProcess {
 public:
  ServerProcess() {
    int to_server[2];
    int from_server[2];
    if (::pipe(to_server) != 0 || ::pipe(from_server) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(to_server[0], STDIN_FILENO);
      ::dup2(from_server[1], STDOUT_FILENO);
      int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, STDERR_FILENO);
      for (int fd : {to_server[0], to_server[1], from_server[0], from_server[1], null}) ::close(fd);
      ::execl(GRAPHSAFE_BINARY, GRAPHSAFE_BINARY, "lsp", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(to_server[0]);
    ::close(from_server[1]);
    input_ = to_server[1];
    output_ = from_server[0];
    reader_ = std::thread([this] { readAll(); });
  }

  ~ServerProcess() {
    if (input_ >= 0) ::close(input_);
    if (pid_ > 0 && !exit_code_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (reader_.joinable()) reader_.join();
    if (output_ >= 0) ::close(output_);
  }

  bool started() const { return pid_ > 0 && input_ >= 0; }

  bool send(const json& message) {
    std::string body = message.dump();
    return sendRaw("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  }

  bool sendRaw(std::string_view rest) {
    while (!rest.empty()) {
      ssize_t written = ::write(input_, rest.data(), rest.size());
      if (written <= 0) return false;
      rest.remove_prefix(static_cast<std::size_t>(written));
    }
    return true;
  }

  // The response to request `id`, waiting up to `timeout`.
  std::optional<json> response(int id, std::chrono::seconds timeout = std::chrono::seconds(120)) {
    std::unique_lock lock(mutex_);
    bool got = arrived_.wait_for(lock, timeout, [&] { return responses_.count(id) != 0 || eof_; });
    if (!got || responses_.count(id) == 0) return std::nullopt;
    return responses_[id];
  }

  // The last diagnostics published for `uri`, with the document version they were made for.
  std::optional<json> published(const std::string& uri) {
    std::lock_guard lock(mutex_);
    auto it = published_.find(uri);
    if (it == published_.end()) return std::nullopt;
    return it->second;
  }

  // The `$/logTrace` messages that report an analysis.
  std::size_t analyses() {
    std::lock_guard lock(mutex_);
    return analyses_;
  }

  std::size_t responseCount() {
    std::lock_guard lock(mutex_);
    return responses_.size();
  }

  // Resident set size in KiB, from /proc.
  long rssKib() const {
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
    }
    return -1;
  }

  // Closes the input and waits for the process; its exit code, or nullopt if it did not exit.
  std::optional<int> finish(std::chrono::seconds timeout = std::chrono::seconds(60)) {
    ::close(input_);
    input_ = -1;
    Clock::time_point deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      int status = 0;
      pid_t done = ::waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return exit_code_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::nullopt;
  }

 private:
  void readAll() {
    std::string buffer;
    char chunk[1 << 16];
    for (;;) {
      ssize_t got = ::read(output_, chunk, sizeof chunk);
      if (got <= 0) break;
      buffer.append(chunk, static_cast<std::size_t>(got));
      for (;;) {
        std::size_t blank = buffer.find("\r\n\r\n");
        if (blank == std::string::npos) break;
        std::size_t length_at = buffer.find("Content-Length: ");
        std::size_t length = std::strtoul(buffer.c_str() + length_at + 16, nullptr, 10);
        if (buffer.size() < blank + 4 + length) break;
        json message = json::parse(buffer.substr(blank + 4, length), nullptr, false);
        buffer.erase(0, blank + 4 + length);
        record(message);
      }
    }
    std::lock_guard lock(mutex_);
    eof_ = true;
    arrived_.notify_all();
  }

  void record(const json& message) {
    std::lock_guard lock(mutex_);
    if (message.contains("id") && message["id"].is_number_integer() &&
        (message.contains("result") || message.contains("error"))) {
      responses_[message["id"].get<int>()] = message;
    } else if (message.value("method", "") == "textDocument/publishDiagnostics") {
      published_[message["params"]["uri"].get<std::string>()] = message["params"];
    } else if (message.value("method", "") == "$/logTrace" &&
               message["params"].value("message", "").find("analysis") != std::string::npos) {
      ++analyses_;
    }
    arrived_.notify_all();
  }

  pid_t pid_ = -1;
  int input_ = -1;
  int output_ = -1;
  std::optional<int> exit_code_;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<int, json> responses_;
  std::map<std::string, json> published_;
  std::size_t analyses_ = 0;
  bool eof_ = false;
};

json notification(const std::string& method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

json request(int id, const std::string& method, json params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json position(int line, int character) {
  return {{"line", line}, {"character", character}};
}

// The document as the client holds it: one string per line, edited as the server is told.
struct Mirror {
  std::vector<std::string> lines;

  std::string text() const {
    std::string all;
    for (const std::string& line : lines) all += line + "\n";
    return all;
  }
};

// (rule, 0-based line, 0-based column) of each finding: what a client shows.
using Finding = std::tuple<std::string, int, int>;

std::set<Finding> lspFindings(const json& diagnostics) {
  std::set<Finding> found;
  for (const json& diagnostic : diagnostics) {
    if (!diagnostic.contains("code")) continue;  // a notice about the file, not a finding
    found.emplace(diagnostic["code"].get<std::string>(),
                  diagnostic["range"]["start"]["line"].get<int>(),
                  diagnostic["range"]["start"]["character"].get<int>());
  }
  return found;
}

TEST(LspLoadTest, TenThousandRapidChangesWithInterleavedRequests) {
  testing::TempTree tree;
  std::string path = tree.path("train.py");
  std::string uri = "file://" + path;
  Mirror doc;
  doc.lines = {"import torch",
               "",
               "x = torch.ones(4, device=\"cuda\")",
               "graph = torch.cuda.CUDAGraph()",
               "with torch.cuda.graph(graph):",
               "    total = x.sum()",
               "    value = total.item()",
               "    scale = 1"};

  ServerProcess server;
  ASSERT_TRUE(server.started());
  ASSERT_TRUE(server.send(request(1, "initialize",
                                  {{"processId", nullptr},
                                   {"rootUri", "file://" + tree.path()},
                                   {"capabilities", json::object()}})));
  ASSERT_TRUE(server.response(1)) << "no answer to initialize";
  server.send(notification("initialized", json::object()));
  server.send(notification(
      "textDocument/didOpen",
      {{"textDocument",
        {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", doc.text()}}}}));

  int version = 1;
  int next_id = 2;
  std::vector<int> request_ids;
  // One edit: typing at the end of the last line, deleting it again, and now and then a new
  // line (a hazard or a harmless one) or a line removed. Every 25th change comes with a request.
  auto change = [&](int step) {
    int last = static_cast<int>(doc.lines.size()) - 1;
    int column = static_cast<int>(doc.lines[last].size());
    int kind = step % 7;
    if ((kind == 3 || kind == 4) && column <= 12) kind = 0;  // never delete the indentation
    if (kind == 6 && doc.lines.size() <= 9) kind = 0;        // the region keeps a body
    json edit;
    if (kind <= 2) {  // type a character
      std::string typed(1, static_cast<char>('0' + step % 10));
      edit = {{"range", {{"start", position(last, column)}, {"end", position(last, column)}}},
              {"text", typed}};
      doc.lines[last] += typed;
    } else if (kind <= 4) {  // delete the last character
      edit = {{"range", {{"start", position(last, column - 1)}, {"end", position(last, column)}}},
              {"text", ""}};
      doc.lines[last].pop_back();
    } else if (kind == 5) {  // a new line inside the capture
      std::string line = step % 2 == 0 ? std::string("    torch.cuda.synchronize()")
                                       : "    scale = " + std::to_string(step);
      edit = {{"range", {{"start", position(last, column)}, {"end", position(last, column)}}},
              {"text", "\n" + line}};
      doc.lines.push_back(line);
    } else {  // remove the line before the last
      edit = {{"range", {{"start", position(last - 1, 0)}, {"end", position(last, 0)}}},
              {"text", ""}};
      doc.lines.erase(doc.lines.end() - 2);
    }
    ++version;
    server.send(notification("textDocument/didChange",
                             {{"textDocument", {{"uri", uri}, {"version", version}}},
                              {"contentChanges", json::array({edit})}}));
  };
  auto interleave = [&](int step) {
    int id = next_id++;
    request_ids.push_back(id);
    int line = step % static_cast<int>(doc.lines.size());
    if (step % 2 == 0) {
      server.send(request(id, "textDocument/hover",
                          {{"textDocument", {{"uri", uri}}}, {"position", position(line, 4)}}));
    } else {
      server.send(request(id, "textDocument/codeAction",
                          {{"textDocument", {{"uri", uri}}},
                           {"range", {{"start", position(0, 0)}, {"end", position(line, 0)}}},
                           {"context", {{"diagnostics", json::array()}}}}));
    }
  };

  const int kChanges = 10'000;
  // The first half brings the server to its steady state (the allocator's high-water mark
  // included); the second half must not add to it.
  const int kWarmUp = kChanges / 2;
  long rss_after_warm_up = 0;
  Clock::time_point start = Clock::now();
  for (int step = 0; step < kChanges; ++step) {
    change(step);
    if (step % 25 == 24) interleave(step);
    if (step == kWarmUp) {
      // Let the server catch up, so that what it holds now is its steady state.
      int id = next_id++;
      server.send(request(id, "textDocument/hover",
                          {{"textDocument", {{"uri", uri}}}, {"position", position(0, 0)}}));
      ASSERT_TRUE(server.response(id)) << "the server stopped answering during warm-up";
      rss_after_warm_up = server.rssKib();
    }
  }
  // A request after the last change: the server analyzes the final text before answering it.
  int final_id = next_id++;
  server.send(request(final_id, "textDocument/hover",
                      {{"textDocument", {{"uri", uri}}}, {"position", position(6, 16)}}));
  std::optional<json> final_answer = server.response(final_id);
  ASSERT_TRUE(final_answer) << "no answer after the burst";
  long rss_after_burst = server.rssKib();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  for (int id : request_ids) {
    std::optional<json> answer = server.response(id, std::chrono::seconds(5));
    ASSERT_TRUE(answer) << "request " << id << " got no answer";
    EXPECT_FALSE(answer->contains("error")) << answer->dump();
  }
  std::optional<json> published = server.published(uri);
  ASSERT_TRUE(published);
  EXPECT_LE((*published)["version"].get<int>(), version);

  // The memory held after 5,000 more changes is about what was held after the first 5,000.
  ASSERT_GT(rss_after_warm_up, 0);
  EXPECT_LT(rss_after_burst, rss_after_warm_up * 3 / 2 + 16 * 1024)
      << "RSS grew from " << rss_after_warm_up << " KiB to " << rss_after_burst << " KiB";

  server.send(request(next_id, "shutdown", nullptr));
  ASSERT_TRUE(server.response(next_id));
  server.send(notification("exit", nullptr));
  EXPECT_EQ(server.finish(), 0);

  // The same text, checked from scratch.
  tree.write("train.py", doc.text());
  std::string out = tree.path("check.json");
  std::string command = std::string("cd '") + tree.path() + "' && '" + GRAPHSAFE_BINARY +
                        "' check --format json train.py >'" + out + "' 2>/dev/null";
  int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  json checked = json::parse(tree.read("check.json"));
  std::set<Finding> expected;
  for (const json& diagnostic : checked["diagnostics"]) {
    expected.emplace(diagnostic["rule"].get<std::string>(),
                     diagnostic["range"]["start"]["line"].get<int>() - 1,
                     diagnostic["range"]["start"]["column"].get<int>() - 1);
  }
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(lspFindings((*published)["diagnostics"]), expected);
  RecordProperty("seconds", std::to_string(seconds));
  RecordProperty("rss_warm_kib", std::to_string(rss_after_warm_up));
  RecordProperty("rss_burst_kib", std::to_string(rss_after_burst));
}

json initializeRequest(int id, const std::string& root, json extra = json::object()) {
  json params = {
      {"processId", nullptr}, {"rootUri", "file://" + root}, {"capabilities", json::object()}};
  params.update(extra);
  return request(id, "initialize", std::move(params));
}

TEST(LspLoadTest, AMillionCancellationsForUnknownIdsLeaveNothingBehind) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make address-space limits and "
                  "resident-size bounds meaningless";
#endif
  testing::TempTree tree;
  ServerProcess server;
  ASSERT_TRUE(server.started());
  ASSERT_TRUE(server.send(initializeRequest(1, tree.path())));
  ASSERT_TRUE(server.response(1));
  server.send(notification("initialized", json::object()));
  int next_id = 2;
  // The reader handles messages in order, so the answer to a request sent after the
  // cancellations means all of them were read.
  auto cancelThenSync = [&](int from, int count) {
    std::string batch;
    for (int i = from; i < from + count; ++i) {
      std::string body = notification("$/cancelRequest", {{"id", i}}).dump();
      batch += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
      if (batch.size() > (1u << 20)) {
        ASSERT_TRUE(server.sendRaw(batch));
        batch.clear();
      }
    }
    ASSERT_TRUE(server.sendRaw(batch));
    int id = next_id++;
    server.send(request(id, "graphsafe/noSuchMethod", json::object()));
    ASSERT_TRUE(server.response(id));
  };
  cancelThenSync(1'000'000, 100'000);  // the warm-up: buffers at their working size
  long before = server.rssKib();
  cancelThenSync(2'000'000, 1'000'000);
  long after = server.rssKib();
  ASSERT_GT(before, 0);
  // A set of a million ids would take 60 MB and more.
  EXPECT_LT(after, before + 16 * 1024) << "RSS grew from " << before << " KiB to " << after;
  RecordProperty("rss_before_kib", std::to_string(before));
  RecordProperty("rss_after_kib", std::to_string(after));
  server.send(request(next_id, "shutdown", nullptr));
  ASSERT_TRUE(server.response(next_id));
  server.send(notification("exit", nullptr));
  EXPECT_EQ(server.finish(), 0);
}

TEST(LspLoadTest, AClientThatNeverReadsDoesNotGrowTheServer) {
  testing::TempTree tree;
  testing::LspClient client(GRAPHSAFE_BINARY, tree.path());
  ASSERT_TRUE(client.started());
  int id = client.request("initialize", {{"processId", nullptr},
                                         {"rootUri", "file://" + tree.path()},
                                         {"capabilities", json::object()}});
  ASSERT_TRUE(client.response(id));
  client.notify("initialized", json::object());
  std::string uri = "file://" + tree.path("a.py");
  client.notify("textDocument/didOpen",
                {{"textDocument",
                  {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", "x = 1\n"}}}});
  ASSERT_TRUE(client.notification("textDocument/publishDiagnostics"));
  long before = client.rssKib();

  // 300,000 requests (about 45 MB), none of whose answers is read. The server blocks on its
  // output, then stops reading; the sender blocks in its turn.
  std::atomic<int> sent{0};
  const int kRequests = 300'000;
  std::thread sender([&] {
    std::string body = request(0, "textDocument/hover",
                               {{"textDocument", {{"uri", uri}}}, {"position", position(0, 0)}})
                           .dump();
    std::string framed = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    for (int i = 0; i < kRequests; ++i) {
      client.sendRaw(framed);
      sent.fetch_add(1);
    }
  });
  // Until the sender stalls for two seconds (or is done, which would mean the server read it
  // all: then its memory must still be bounded). A bound on waiting, not a speed assertion.
  int last = -1;
  int still = 0;
  for (int tick = 0; tick < 600 && still < 10 && sent.load() < kRequests; ++tick) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    int now = sent.load();
    still = now == last ? still + 1 : 0;
    last = now;
  }
  long after = client.rssKib();
  int sent_when_measured = sent.load();
  client.kill();  // the blocked sender's write fails, and it ends
  sender.join();
  ASSERT_GT(before, 0);
  EXPECT_LT(after, before + 64 * 1024) << "RSS grew from " << before << " KiB to " << after
                                       << " KiB after " << sent_when_measured << " unread requests";
  EXPECT_LT(sent_when_measured, kRequests) << "the server never pushed back";
  RecordProperty("rss_before_kib", std::to_string(before));
  RecordProperty("rss_after_kib", std::to_string(after));
  RecordProperty("requests_sent", std::to_string(sent_when_measured));
}

TEST(LspLoadTest, FiftyThousandRequestsAfterAChangeAreAnsweredFromOneAnalysis) {
  testing::TempTree tree;
  // A document slow enough to analyze that re-running it per request would not finish.
  std::string text = "import torch\n\nx = torch.ones(4, device=\"cuda\")\n";
  for (int i = 0; i < 2000; ++i) {
    text += "g" + std::to_string(i) + " = torch.cuda.CUDAGraph()\n";
    text += "with torch.cuda.graph(g" + std::to_string(i) + "):\n    y = x.sum().item()\n";
  }
  std::string uri = "file://" + tree.path("slow.py");
  ServerProcess server;
  ASSERT_TRUE(server.started());
  ASSERT_TRUE(server.send(initializeRequest(1, tree.path(), {{"trace", "messages"}})));
  ASSERT_TRUE(server.response(1));
  server.send(notification("initialized", json::object()));
  server.send(
      notification("textDocument/didOpen",
                   {{"textDocument",
                     {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}));
  int id = 2;
  server.send(request(id, "textDocument/hover",
                      {{"textDocument", {{"uri", uri}}}, {"position", position(0, 0)}}));
  ASSERT_TRUE(server.response(id));
  std::size_t after_open = server.analyses();
  EXPECT_GE(after_open, 1u);

  server.send(
      notification("textDocument/didChange",
                   {{"textDocument", {{"uri", uri}, {"version", 2}}},
                    {"contentChanges",
                     json::array({{{"range", {{"start", position(2, 0)}, {"end", position(2, 0)}}},
                                   {"text", "z = 1\n"}}})}}));
  const int kRequests = 50'000;
  for (int i = 0; i < kRequests; ++i) {
    ++id;
    int line = i % 100;
    if (i % 1000 == 999) {  // a save without a change changes nothing either
      server.send(notification("textDocument/didSave", {{"textDocument", {{"uri", uri}}}}));
    }
    if (i % 2 == 0) {
      server.send(request(id, "textDocument/hover",
                          {{"textDocument", {{"uri", uri}}}, {"position", position(line, 4)}}));
    } else {
      server.send(request(id, "textDocument/codeAction",
                          {{"textDocument", {{"uri", uri}}},
                           {"range", {{"start", position(line, 0)}, {"end", position(line, 9)}}},
                           {"context", {{"diagnostics", json::array()}}}}));
    }
  }
  std::optional<json> last = server.response(id, std::chrono::seconds(300));
  ASSERT_TRUE(last) << "the requests were not all answered";
  EXPECT_FALSE(last->contains("error")) << last->dump();
  EXPECT_EQ(server.responseCount(), static_cast<std::size_t>(kRequests + 2));
  EXPECT_EQ(server.analyses(), after_open + 1);
  server.send(request(id + 1, "shutdown", nullptr));
  ASSERT_TRUE(server.response(id + 1));
  server.send(notification("exit", nullptr));
  EXPECT_EQ(server.finish(), 0);
}

}  // namespace
}  // namespace graphsafe
