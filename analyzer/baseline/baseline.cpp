#include "analyzer/baseline/baseline.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "analyzer/io/atomic_write.h"
#include "analyzer/io/bounded_read.h"
#include "analyzer/io/json_bytes.h"
#include "analyzer/output/output_common.h"

namespace graphsafe {

namespace {

constexpr int kBaselineVersion = 1;
// Far above any real baseline (100,000 findings take about 30 MB), far below memory's end.
constexpr std::size_t kMaxBaselineBytes = std::size_t{1} << 30;

// The directory paths in the baseline are relative to: the baseline file's, made absolute.
std::string baseDirectory(const std::string& baseline_path) {
  std::string cwd = currentDirectory();
  std::filesystem::path file(absolutePathFrom(baseline_path, cwd));
  return file.parent_path().generic_string();
}

std::string relativePath(const std::string& path, const std::string& base) {
  std::string cwd = currentDirectory();
  std::string absolute = absolutePathFrom(path, cwd);
  std::string inside = pathInside(absolute, base);
  return inside.empty() ? absolute : inside;
}

}  // namespace

namespace {

std::uint64_t lineHash(const Diagnostic& diagnostic) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  auto mix = [&hash](std::string_view bytes) {
    for (char c : bytes) {
      hash ^= static_cast<unsigned char>(c);
      hash *= 0x100000001b3ull;
    }
  };
  mix(diagnostic.rule_id);
  mix(std::string_view("\0", 1));
  if (diagnostic.file) {
    for (char c : diagnostic.file->line(diagnostic.range.start.line)) {
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v') {
        mix(std::string_view(&c, 1));
      }
    }
  }
  return hash;
}

std::string hexOf(std::uint64_t hash) {
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace

std::string lineFingerprint(const Diagnostic& diagnostic) {
  return hexOf(lineHash(diagnostic));
}

std::uint64_t LineFingerprints::hash(const Diagnostic& diagnostic) {
  auto [known, added] = known_.try_emplace(
      {diagnostic.file.get(), diagnostic.range.start.line, diagnostic.rule_id}, 0);
  if (added) known->second = lineHash(diagnostic);
  return known->second;
}

std::string LineFingerprints::of(const Diagnostic& diagnostic) {
  return hexOf(hash(diagnostic));
}

Baseline Baseline::fromResult(const RunResult& result, const std::string& baseline_path) {
  Baseline baseline;
  std::string base = baseDirectory(baseline_path);
  LineFingerprints fingerprints;
  for (const Diagnostic& diagnostic : result.diagnostics) {
    BaselineEntry entry;
    entry.rule = diagnostic.rule_id;
    entry.path = diagnostic.file ? relativePath(diagnostic.path(), base) : std::string();
    entry.fingerprint = fingerprints.of(diagnostic);
    entry.line = diagnostic.range.start.line + 1;
    entry.message = diagnostic.message;
    baseline.entries_.push_back(std::move(entry));
  }
  std::stable_sort(baseline.entries_.begin(), baseline.entries_.end(),
                   [](const BaselineEntry& a, const BaselineEntry& b) {
                     return std::tie(a.path, a.rule, a.line) < std::tie(b.path, b.rule, b.line);
                   });
  return baseline;
}

std::optional<Baseline> Baseline::load(const std::string& path, std::string& error) {
  std::string text;
  if (!readRegularFile(path, kMaxBaselineBytes, text, error)) {
    error = path + ": cannot use the baseline: " + error;
    return std::nullopt;
  }
  nlohmann::json document = nlohmann::json::parse(text, nullptr, false);
  auto bad = [&](const std::string& why) {
    error = path + ": not a graphsafe baseline: " + why;
    return std::nullopt;
  };
  if (document.is_discarded()) return bad("not valid JSON");
  if (!document.is_object()) return bad("expected a JSON object");
  auto version = document.find("version");
  if (version == document.end() || !version->is_number_integer()) {
    return bad("no \"version\"");
  }
  if (version->get<int>() != kBaselineVersion) {
    return bad("version " + version->dump() + " is not supported (expected " +
               std::to_string(kBaselineVersion) + ")");
  }
  auto findings = document.find("findings");
  if (findings == document.end() || !findings->is_array()) return bad("no \"findings\" array");
  Baseline baseline;
  std::size_t index = 0;
  for (const nlohmann::json& item : *findings) {
    std::string where = "findings[" + std::to_string(index++) + "]";
    if (!item.is_object()) return bad(where + " is not an object");
    BaselineEntry entry;
    for (auto [key, field] : {std::pair{"rule", &entry.rule}, std::pair{"path", &entry.path},
                              std::pair{"fingerprint", &entry.fingerprint}}) {
      auto it = item.find(key);
      if (it == item.end() || !it->is_string()) {
        return bad(where + " has no string \"" + key + "\"");
      }
      *field = it->get<std::string>();
    }
    if (auto bytes = item.find("path_bytes"); bytes != item.end()) {
      std::optional<std::string> exact =
          bytes->is_string() ? bytesFromHex(bytes->get<std::string>()) : std::nullopt;
      if (!exact) return bad(where + " has a \"path_bytes\" that is not hex");
      entry.path = std::move(*exact);
    }
    if (auto line = item.find("line"); line != item.end() && line->is_number_unsigned()) {
      entry.line = line->get<std::uint32_t>();
    }
    if (auto message = item.find("message"); message != item.end() && message->is_string()) {
      entry.message = message->get<std::string>();
    }
    baseline.entries_.push_back(std::move(entry));
  }
  return baseline;
}

std::string Baseline::serialize() const {
  nlohmann::json findings = nlohmann::json::array();
  for (const BaselineEntry& entry : entries_) {
    nlohmann::json finding = {{"rule", entry.rule},
                              {"path", entry.path},
                              {"fingerprint", entry.fingerprint},
                              {"line", entry.line},
                              {"message", entry.message}};
    // A name that is not UTF-8: "path" shows it to people (invalid bytes as U+FFFD) and
    // "path_bytes" holds it exactly, for matching.
    if (!isUtf8(entry.path)) finding["path_bytes"] = bytesToHex(entry.path);
    findings.push_back(std::move(finding));
  }
  nlohmann::json document = {
      {"tool", "graphsafe"}, {"version", kBaselineVersion}, {"findings", std::move(findings)}};
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

bool Baseline::write(const std::string& path, std::string& error) const {
  return writeFileAtomically(path, serialize(), error);
}

bool Baseline::write(const std::string& path, const FileSnapshot& expected, std::string& error,
                     const LinkBoundary& boundary) const {
  return writeFileAtomically(path, serialize(), expected, error, boundary);
}

std::size_t Baseline::filter(RunResult& result, const std::string& path) const {
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> remaining;
  for (const BaselineEntry& entry : entries_) {
    ++remaining[{entry.rule, entry.path, entry.fingerprint}];
  }
  std::string base = baseDirectory(path);
  std::size_t hidden = 0;
  LineFingerprints fingerprints;
  std::erase_if(result.diagnostics, [&](const Diagnostic& diagnostic) {
    std::string relative = diagnostic.file ? relativePath(diagnostic.path(), base) : "";
    auto it = remaining.find({diagnostic.rule_id, relative, fingerprints.of(diagnostic)});
    if (it == remaining.end() || it->second == 0) return false;
    --it->second;
    ++hidden;
    return true;
  });
  return hidden;
}

}  // namespace graphsafe
