#pragma once

// The seal on the entries of the cache directory: a keyed hash of an entry's payload (BLAKE2b,
// 256 bits, libsodium's crypto_generichash) under a key that lives outside any checkout, in the
// user's cache directory ($XDG_CACHE_HOME/graphsafe/cache-key, else ~/.cache/graphsafe/
// cache-key), made on first use and readable by the user alone.
//
// The cache directory sits in the checkout by default, and a checkout is a stranger's: a pull
// request can commit a `.graphsafe_cache/` whose entries say "no findings" for its own files.
// Without the key nobody can seal such an entry, so it reads as a miss. An entry written on
// another machine (another key) is a miss too; CI that keeps the cache between jobs keeps the
// key file with it (docs/scale.md).

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace graphsafe {

class CacheSeal {
 public:
  static constexpr std::size_t kKeyBytes = 32;

  // The key in `key_file`, made there (random bytes, mode 0600) when the file does not exist or
  // does not hold a key. nullopt with `error` when it can be neither read nor made.
  static std::optional<CacheSeal> fromKeyFile(const std::string& key_file, std::string& error);

  // Where this user's key lives; empty when there is no home to keep it in.
  static std::string defaultKeyFile();

  // The seal of `payload`: 64 hexadecimal digits.
  std::string seal(std::string_view payload) const;
  // Whether `seal` is `payload`'s (compared in constant time).
  bool verify(std::string_view payload, std::string_view seal) const;

 private:
  explicit CacheSeal(const std::array<unsigned char, kKeyBytes>& key) : key_(key) {}
  std::array<unsigned char, kKeyBytes> key_;
};

// This process's seal, from defaultKeyFile() (read once); null when the key can be neither read
// nor made: the cache is then off. `error` says why.
const CacheSeal* machineCacheSeal(std::string* error = nullptr);

}  // namespace graphsafe
