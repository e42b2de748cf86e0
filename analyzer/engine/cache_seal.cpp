#include "analyzer/engine/cache_seal.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <system_error>

#include "analyzer/io/bounded_read.h"
#include "analyzer/io/json_bytes.h"

namespace graphsafe {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kSealBytes = 32;

bool sodiumReady() {
  static const bool ready = ::sodium_init() >= 0;
  return ready;
}

// The key a file holds: 64 hexadecimal digits and a newline.
std::optional<std::array<unsigned char, CacheSeal::kKeyBytes>> keyFromText(std::string_view text) {
  if (text.ends_with('\n')) text.remove_suffix(1);
  std::optional<std::string> bytes = bytesFromHex(text);
  if (!bytes || bytes->size() != CacheSeal::kKeyBytes) return std::nullopt;
  std::array<unsigned char, CacheSeal::kKeyBytes> key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<unsigned char>((*bytes)[i]);
  return key;
}

std::optional<std::array<unsigned char, CacheSeal::kKeyBytes>> readKey(const std::string& file) {
  std::string text;
  std::string ignored;
  if (!readRegularFile(file, 4096, text, ignored)) return std::nullopt;
  return keyFromText(text);
}

// A new key in `file`: written to a temporary file of mode 0600, then linked into place (a key
// another process made meanwhile is kept: both then seal alike) or, over a file that holds no
// key, renamed.
bool makeKey(const std::string& file, std::string& error) {
  std::error_code ec;
  fs::path dir = fs::path(file).parent_path();
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir.string() + ": " + ec.message();
    return false;
  }
  ::chmod(dir.c_str(), 0700);
  std::array<unsigned char, CacheSeal::kKeyBytes> key{};
  ::randombytes_buf(key.data(), key.size());
  std::string text =
      bytesToHex(std::string_view(reinterpret_cast<const char*>(key.data()), key.size())) + "\n";
  ::sodium_memzero(key.data(), key.size());
  std::string temporary = file + ".graphsafe-" + std::to_string(::getpid()) + ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    error = "cannot write " + temporary + ": " + std::generic_category().message(errno);
    return false;
  }
  bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                 ::fsync(fd) == 0;
  written = ::close(fd) == 0 && written;
  ::sodium_memzero(text.data(), text.size());
  if (written && ::link(temporary.c_str(), file.c_str()) != 0) {
    const int link_error = errno;
    if (link_error != EEXIST) {
      written = false;
    } else if (!readKey(file)) {  // a key another run made just now is kept; anything else not
      written = ::rename(temporary.c_str(), file.c_str()) == 0;
    }
    if (!written) {
      error = "cannot write " + file + ": " + std::generic_category().message(errno);
    }
  }
  ::unlink(temporary.c_str());
  return written;
}

}  // namespace

std::optional<CacheSeal> CacheSeal::fromKeyFile(const std::string& key_file, std::string& error) {
  if (!sodiumReady()) {
    error = "libsodium could not be initialized";
    return std::nullopt;
  }
  if (auto key = readKey(key_file)) return CacheSeal(*key);
  // Missing, or not a key (cut short, edited): a new one. A concurrent run may have made one
  // first; either way the file's key is the one used.
  if (!makeKey(key_file, error) && !readKey(key_file)) return std::nullopt;
  if (auto key = readKey(key_file)) return CacheSeal(*key);
  error = key_file + ": does not hold a key";
  return std::nullopt;
}

std::string CacheSeal::defaultKeyFile() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg == '/') return (fs::path(xdg) / "graphsafe" / "cache-key").string();
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home == '/') {
    return (fs::path(home) / ".cache" / "graphsafe" / "cache-key").string();
  }
  return {};
}

std::string CacheSeal::seal(std::string_view payload) const {
  std::array<unsigned char, kSealBytes> out{};
  ::crypto_generichash(out.data(), out.size(),
                       reinterpret_cast<const unsigned char*>(payload.data()), payload.size(),
                       key_.data(), key_.size());
  return bytesToHex(std::string_view(reinterpret_cast<const char*>(out.data()), out.size()));
}

bool CacheSeal::verify(std::string_view payload, std::string_view seal_text) const {
  const std::string expected = seal(payload);
  return seal_text.size() == expected.size() &&
         ::sodium_memcmp(expected.data(), seal_text.data(), expected.size()) == 0;
}

const CacheSeal* machineCacheSeal(std::string* error) {
  static std::once_flag once;
  static std::optional<CacheSeal> seal;
  static std::string problem;
  std::call_once(once, [] {
    const std::string file = CacheSeal::defaultKeyFile();
    if (file.empty()) {
      problem = "no home directory to keep the cache's key in (HOME is not set)";
      return;
    }
    seal = CacheSeal::fromKeyFile(file, problem);
  });
  if (error != nullptr) *error = problem;
  return seal ? &*seal : nullptr;
}

}  // namespace graphsafe
