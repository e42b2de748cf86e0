#include "analyzer/engine/isolated_frontend.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <string_view>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/model/model_codec.h"

namespace graphsafe {

namespace {

// The child's exit statuses that say what went wrong before a model could be sent.
constexpr int kOutOfMemoryExit = 86;
constexpr int kWriteFailedExit = 87;
constexpr int kUnexpectedExit = 88;
// What the child's standard error keeps of Clang's last words, for the notice.
constexpr std::size_t kKeptErrorBytes = 4096;

// The file descriptors the child keeps: the model pipe, and stderr onto the error pipe.
constexpr int kModelFd = 3;

FileModel failedModel(const Frontend& inner, const SourceFilePtr& source, std::string message) {
  FileModel model;
  model.language = inner.language();
  model.source = source;
  model.parse_failed = true;
  model.notices.push_back({source->path(), -1, std::move(message)});
  return model;
}

bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

// Every descriptor but 0-3 closed: the child must not hold another child's pipe open (its
// parent would wait for an end of file that never comes) or anything the parent writes to.
void closeInheritedDescriptors() {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, kModelFd + 1, ~0u, 0) == 0) return;
#endif
  const long limit = ::sysconf(_SC_OPEN_MAX);
  for (long fd = kModelFd + 1; fd < (limit > 0 ? limit : 1024); ++fd) ::close(static_cast<int>(fd));
}

// The address space the child may add to what it inherited: /proc/self/statm's first field is
// the whole mapped size, in pages.
void boundMemory(std::size_t bytes) {
  if (bytes == 0) return;
  unsigned long pages = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%lu", &pages) != 1) pages = 0;
    std::fclose(statm);
  }
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const rlimit limit{pages * page + bytes, pages * page + bytes};
  ::setrlimit(RLIMIT_AS, &limit);
}

[[noreturn]] void runChild(const Frontend& inner, const SourceFilePtr& source,
                           const AnalysisSettings& settings, int model_fd, int error_fd) {
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, 0);
    ::dup2(null, 1);
  }
  ::dup2(error_fd, 2);
  ::dup2(model_fd, kModelFd);
  closeInheritedDescriptors();
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  boundMemory(settings.cxx_memory_bytes);
  std::string bytes;
  try {
    bytes = encodeFileModel(inner.analyze(source, settings));
  } catch (const std::bad_alloc&) {
    ::_exit(kOutOfMemoryExit);
  } catch (...) {
    ::_exit(kUnexpectedExit);
  }
  ::_exit(writeAll(kModelFd, bytes) ? 0 : kWriteFailedExit);
}

std::string limitText(std::uint32_t ms) {
  char text[32];
  if (ms % 1000 == 0) {
    std::snprintf(text, sizeof text, "%u s", ms / 1000);
  } else {
    std::snprintf(text, sizeof text, "%.1f s", ms / 1000.0);
  }
  return text;
}

std::string memoryText(std::size_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// The last line the child wrote on its standard error, for the notice ("LLVM ERROR: out of
// memory"); Clang's stack dump that follows a crash is left out.
std::string lastWords(const std::string& errors) {
  std::size_t end = errors.size();
  std::string best;
  std::size_t start = 0;
  while (start < end) {
    std::size_t newline = errors.find('\n', start);
    if (newline == std::string::npos) newline = end;
    std::string_view line(errors.data() + start, newline - start);
    if (line.starts_with("LLVM ERROR") || line.starts_with("fatal error")) best = line;
    start = newline + 1;
  }
  return best;
}

struct ChildResult {
  std::string model;
  std::string errors;
  bool timed_out = false;
  int status = 0;
};

// Reads both pipes until the child closes them or the deadline passes (then kills it), and
// reaps it.
ChildResult collect(pid_t child, int model_fd, int error_fd, std::uint32_t timeout_ms) {
  ChildResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  pollfd fds[2] = {{model_fd, POLLIN, 0}, {error_fd, POLLIN, 0}};
  char buffer[1 << 16];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    int wait_ms = -1;
    if (timeout_ms != 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        result.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left.count(), 1'000'000));
    }
    const int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0 && errno != EINTR) break;
    for (int k = 0; k < 2 && ready > 0; ++k) {
      if (fds[k].fd < 0 || fds[k].revents == 0) continue;
      const ssize_t got = ::read(fds[k].fd, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        fds[k].fd = -1;
        continue;
      }
      std::string& into = k == 0 ? result.model : result.errors;
      into.append(buffer, static_cast<std::size_t>(got));
      if (k == 1 && into.size() > 2 * kKeptErrorBytes) into.erase(0, into.size() - kKeptErrorBytes);
    }
  }
  if (result.timed_out) ::kill(child, SIGKILL);
  while (::waitpid(child, &result.status, 0) < 0 && errno == EINTR) {
  }
  return result;
}

std::mutex& forkMutex() {
  static std::mutex mutex;
  return mutex;
}

class IsolatedFrontend final : public Frontend {
 public:
  explicit IsolatedFrontend(std::unique_ptr<Frontend> inner) : inner_(std::move(inner)) {}

  Language language() const override { return inner_->language(); }
  std::string_view name() const override { return inner_->name(); }
  bool mayMatter(std::string_view text) const override { return inner_->mayMatter(text); }
  std::vector<std::string> importedModules(const SourceFile& file) const override {
    return inner_->importedModules(file);
  }

  FileModel analyze(const SourceFilePtr& source, const AnalysisSettings& settings) const override {
    if (in_process_) return inner_->analyze(source, settings);
    int model_pipe[2];
    int error_pipe[2];
    if (::pipe2(model_pipe, O_CLOEXEC) != 0) return cannotStart(source);
    if (::pipe2(error_pipe, O_CLOEXEC) != 0) {
      ::close(model_pipe[0]);
      ::close(model_pipe[1]);
      return cannotStart(source);
    }
    // No thread of this process may be inside prepare() when another forks: the child would
    // inherit a lock held by a thread it does not have.
    pid_t child = -1;
    {
      std::lock_guard lock(forkMutex());
      inner_->prepare(*source, settings);
      child = ::fork();
    }
    if (child == 0) runChild(*inner_, source, settings, model_pipe[1], error_pipe[1]);
    ::close(model_pipe[1]);
    ::close(error_pipe[1]);
    if (child < 0) {
      ::close(model_pipe[0]);
      ::close(error_pipe[0]);
      return cannotStart(source);
    }
    ChildResult result = collect(child, model_pipe[0], error_pipe[0], settings.cxx_timeout_ms);
    ::close(model_pipe[0]);
    ::close(error_pipe[0]);
    return outcome(source, settings, result);
  }

 private:
  FileModel cannotStart(const SourceFilePtr& source) const {
    return failedModel(*inner_, source,
                       std::string("could not start the process that analyzes this C++ file: ") +
                           std::strerror(errno));
  }

  FileModel outcome(const SourceFilePtr& source, const AnalysisSettings& settings,
                    const ChildResult& result) const {
    const std::string words = lastWords(result.errors);
    const std::string said = words.empty() ? "" : " (" + words + ")";
    if (result.timed_out) {
      return failedModel(*inner_, source,
                         "analysis of this C++ file stopped after " +
                             limitText(settings.cxx_timeout_ms) +
                             ", the time limit for one file (`cxx-timeout` raises it)");
    }
    const bool out_of_memory =
        (WIFEXITED(result.status) && WEXITSTATUS(result.status) == kOutOfMemoryExit) ||
        words.find("out of memory") != std::string::npos ||
        words.find("Cannot allocate memory") != std::string::npos;
    if (out_of_memory) {
      return failedModel(*inner_, source,
                         "analysis of this C++ file ran out of memory at " +
                             memoryText(settings.cxx_memory_bytes) +
                             ", the memory limit for one file (`cxx-memory` raises it)");
    }
    if (WIFSIGNALED(result.status)) {
      const int signal = WTERMSIG(result.status);
      std::string name = sigabbrev_np(signal) != nullptr ? sigabbrev_np(signal) : "?";
      const std::string why =
          signal == SIGSEGV || signal == SIGBUS
              ? ": deeply nested expressions or macros can overflow the compiler's stack"
              : "";
      return failedModel(*inner_, source,
                         "the C++ frontend crashed on this file (SIG" + name + why + ")" + said +
                             "; the file was skipped");
    }
    if (!WIFEXITED(result.status) || WEXITSTATUS(result.status) != 0) {
      return failedModel(
          *inner_, source,
          "the C++ frontend stopped on this file with status " +
              std::to_string(WIFEXITED(result.status) ? WEXITSTATUS(result.status) : -1) + said +
              "; the file was skipped");
    }
    std::string error;
    auto model = decodeFileModel(result.model, source, error);
    if (!model) {
      return failedModel(*inner_, source,
                         "the C++ frontend sent back no usable model for this file: " + error);
    }
    return std::move(*model);
  }

  static bool inProcess() {
    const char* setting = std::getenv("GRAPHSAFE_CXX_IN_PROCESS");
    return setting != nullptr && *setting != '\0' && std::string_view(setting) != "0";
  }

  std::unique_ptr<Frontend> inner_;
  const bool in_process_ = inProcess();
};

}  // namespace

std::unique_ptr<Frontend> isolateFrontend(std::unique_ptr<Frontend> inner) {
  if (!inner) return inner;
  return std::make_unique<IsolatedFrontend>(std::move(inner));
}

}  // namespace graphsafe
