#pragma once

// A scripted LSP client for tests: starts `graphsafe lsp` with pipes for stdin and stdout,
// frames and sends messages (or raw bytes), and reads messages with a deadline so that a test
// fails instead of hanging when the server does not answer.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace graphsafe::testing {

class LspClient {
 public:
  // `address_space_kib`, when not 0, limits the server's address space (`ulimit -v`).
  explicit LspClient(const std::string& binary, const std::string& working_directory = "",
                     long address_space_kib = 0) {
    int to_server[2];
    int from_server[2];
    if (::pipe(to_server) != 0 || ::pipe(from_server) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(to_server[0], STDIN_FILENO);
      ::dup2(from_server[1], STDOUT_FILENO);
      ::close(to_server[0]);
      ::close(to_server[1]);
      ::close(from_server[0]);
      ::close(from_server[1]);
      if (!working_directory.empty() && ::chdir(working_directory.c_str()) != 0) ::_exit(127);
      if (address_space_kib > 0) {
        rlimit limit{static_cast<rlim_t>(address_space_kib) * 1024,
                     static_cast<rlim_t>(address_space_kib) * 1024};
        if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(127);
      }
      ::execl(binary.c_str(), binary.c_str(), "lsp", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(to_server[0]);
    ::close(from_server[1]);
    in_ = to_server[1];
    out_ = from_server[0];
    ::signal(SIGPIPE, SIG_IGN);
  }
  ~LspClient() {
    closeInput();
    if (out_ >= 0) ::close(out_);
    if (pid_ > 0 && !exit_code_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  LspClient(const LspClient&) = delete;
  LspClient& operator=(const LspClient&) = delete;

  bool started() const { return pid_ > 0 && in_ >= 0 && out_ >= 0; }

  // The server's resident set size in KiB (from /proc), or -1.
  long rssKib() const {
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
    }
    return -1;
  }

  // Kills the server now (a thread blocked writing to it then gets an error).
  void kill() {
    if (pid_ <= 0 || exit_code_) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    exit_code_ = 128 + SIGKILL;
  }

  void sendRaw(const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size() && in_ >= 0) {
      ssize_t wrote = ::write(in_, bytes.data() + done, bytes.size() - done);
      if (wrote <= 0) return;
      done += static_cast<std::size_t>(wrote);
    }
  }
  void sendBody(const std::string& body) {
    sendRaw("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  }
  void send(const nlohmann::json& message) { sendBody(message.dump()); }
  void notify(const std::string& method, nlohmann::json params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  int request(const std::string& method, nlohmann::json params) {
    int id = ++next_id_;
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return id;
  }
  void closeInput() {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
  }

  // The next message, or nullopt when none comes within `timeout`.
  std::optional<nlohmann::json> receive(std::chrono::milliseconds timeout = kTimeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto message = parseBuffered()) return message;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd fd{out_, POLLIN, 0};
      if (::poll(&fd, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
      char chunk[65536];
      ssize_t got = ::read(out_, chunk, sizeof chunk);
      if (got <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<std::size_t>(got));
    }
  }

  // Messages until one satisfies `match` (returned); the others are kept in `skipped()`.
  std::optional<nlohmann::json> receiveUntil(
      const std::function<bool(const nlohmann::json&)>& match,
      std::chrono::milliseconds timeout = kTimeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      std::optional<nlohmann::json> message = receive(left);
      if (!message) return std::nullopt;
      if (match(*message)) return message;
      skipped_.push_back(std::move(*message));
    }
  }
  std::optional<nlohmann::json> response(int id) {
    return receiveUntil([id](const nlohmann::json& m) {
      return m.contains("id") && m["id"] == id && !m.contains("method");
    });
  }
  std::optional<nlohmann::json> notification(const std::string& method) {
    return receiveUntil([&](const nlohmann::json& m) {
      return m.contains("method") && m["method"] == method && !m.contains("id");
    });
  }
  const std::vector<nlohmann::json>& skipped() const { return skipped_; }

  // Waits for the server to exit; its exit code, or nullopt if it does not within `timeout`.
  std::optional<int> waitForExit(std::chrono::milliseconds timeout = kTimeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      pid_t done = ::waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return exit_code_;
      }
      ::usleep(10000);
    }
    return std::nullopt;
  }

  static constexpr std::chrono::milliseconds kTimeout{10000};

 private:
  std::optional<nlohmann::json> parseBuffered() {
    std::size_t end = buffer_.find("\r\n\r\n");
    if (end == std::string::npos) return std::nullopt;
    std::string headers = buffer_.substr(0, end);
    std::size_t at = headers.find("Content-Length: ");
    if (at == std::string::npos) return std::nullopt;
    std::size_t length = std::stoul(headers.substr(at + 16));
    if (buffer_.size() < end + 4 + length) return std::nullopt;
    std::string body = buffer_.substr(end + 4, length);
    buffer_.erase(0, end + 4 + length);
    return nlohmann::json::parse(body, nullptr, false);
  }

  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  int next_id_ = 0;
  std::string buffer_;
  std::vector<nlohmann::json> skipped_;
  std::optional<int> exit_code_;
};

}  // namespace graphsafe::testing
