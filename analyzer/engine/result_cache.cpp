#include "analyzer/engine/result_cache.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/engine/cache_files.h"
#include "analyzer/engine/source_reader.h"
#include "analyzer/io/atomic_write.h"
#include "analyzer/io/file_stamp.h"
#include "analyzer/io/json_bytes.h"

namespace graphsafe {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kMagic = ResultCache::kEntryMagic;
// Names and messages that are not UTF-8 are stored as bytes (bytesToJson()); `replace` only
// guards what is UTF-8 by construction.
void writeEntry(const std::string& directory, const std::string& path, const json& payload) {
  writeCacheEntry(directory, path, kMagic,
                  payload.dump(-1, ' ', false, json::error_handler_t::replace));
}

json rangeToJson(const SourceRange& range) {
  return json::array({range.begin, range.end, range.start.line, range.start.column, range.stop.line,
                      range.stop.column});
}

json diagnosticToJson(const Diagnostic& d) {
  json related = json::array();
  for (const RelatedLocation& location : d.related) {
    related.push_back({{"path", bytesToJson(location.file->path())},
                       {"range", rangeToJson(location.range)},
                       {"message", bytesToJson(location.message)}});
  }
  json entry = {{"rule", d.rule_id},
                {"name", d.rule_name},
                {"severity", d.severity == Severity::kError ? 0 : 1},
                {"path", bytesToJson(d.path())},
                {"range", rangeToJson(d.range)},
                {"message", bytesToJson(d.message)},
                {"help", bytesToJson(d.help)},
                {"related", std::move(related)}};
  if (d.fix) {
    json edits = json::array();
    for (const TextEdit& edit : d.fix->edits) {
      edits.push_back(
          {{"range", rangeToJson(edit.range)}, {"replacement", bytesToJson(edit.replacement)}});
    }
    entry["fix"] = {{"description", bytesToJson(d.fix->description)}, {"edits", std::move(edits)}};
  }
  return entry;
}

json regionToJson(const RegionSummary& region) {
  json unresolved = json::array();
  for (const UnresolvedCall& call : region.unresolved) {
    unresolved.push_back(
        json::array({bytesToJson(call.file->path()), rangeToJson(call.range),
                     bytesToJson(call.text), bytesToJson(call.reason)}));
  }
  return {{"path", bytesToJson(region.file->path())}, {"site", rangeToJson(region.site)},
          {"kind", region.kind},         {"function", region.function},
          {"reaches", region.reaches},   {"unresolved", std::move(unresolved)}};
}

// Thrown (and caught in load) when an entry does not prove its result.
struct Unusable {};

// An object with exactly these keys: an entry of another shape is not one this build wrote.
bool hasExactly(const json& object, std::initializer_list<const char*> keys) {
  if (!object.is_object() || object.size() != keys.size()) return false;
  for (const char* key : keys) {
    if (!object.contains(key)) return false;
  }
  return true;
}

// The sources of the files a cached result points at, read again and checked against the
// hashes the entry recorded for them.
class SourceSet {
 public:
  SourceSet(const std::map<std::string, std::uint64_t>& hashes, const AnalysisSettings& settings)
      : hashes_(hashes), settings_(settings) {}

  SourceFilePtr get(const std::string& path) {
    auto found = files_.find(path);
    if (found != files_.end()) return found->second;
    auto hash = hashes_.find(path);
    if (hash == hashes_.end()) throw Unusable{};
    std::vector<Notice> ignored;
    SourceFilePtr file = readSource(path, settings_, ignored);
    if (!file || contentHash(file->text()) != hash->second) throw Unusable{};
    return files_.emplace(path, file).first->second;
  }

 private:
  const std::map<std::string, std::uint64_t>& hashes_;
  const AnalysisSettings& settings_;
  std::map<std::string, SourceFilePtr> files_;
};

// A range read back must be a range of its file, with the points the file gives its offsets.
SourceRange rangeFromJson(const json& value, const SourceFile& file) {
  SourceRange range;
  range.begin = value.at(0).get<std::uint32_t>();
  range.end = value.at(1).get<std::uint32_t>();
  range.start = {value.at(2).get<std::uint32_t>(), value.at(3).get<std::uint32_t>()};
  range.stop = {value.at(4).get<std::uint32_t>(), value.at(5).get<std::uint32_t>()};
  if (range.begin > range.end || range.end > file.text().size() ||
      file.pointAt(range.begin) != range.start || file.pointAt(range.end) != range.stop) {
    throw Unusable{};
  }
  return range;
}

Diagnostic diagnosticFromJson(const json& value, SourceSet& sources) {
  Diagnostic d;
  d.rule_id = value.at("rule").get<std::string>();
  d.rule_name = value.at("name").get<std::string>();
  int severity = value.at("severity").get<int>();
  if (severity != 0 && severity != 1) throw Unusable{};
  d.severity = severity == 0 ? Severity::kError : Severity::kWarning;
  d.file = sources.get(bytesFromJson(value.at("path")));
  d.range = rangeFromJson(value.at("range"), *d.file);
  d.message = bytesFromJson(value.at("message"));
  d.help = bytesFromJson(value.at("help"));
  for (const json& related : value.at("related")) {
    RelatedLocation location;
    location.file = sources.get(bytesFromJson(related.at("path")));
    location.range = rangeFromJson(related.at("range"), *location.file);
    location.message = bytesFromJson(related.at("message"));
    d.related.push_back(std::move(location));
  }
  if (value.contains("fix")) {
    const json& fix = value.at("fix");
    Fix parsed;
    parsed.description = bytesFromJson(fix.at("description"));
    for (const json& edit : fix.at("edits")) {
      parsed.edits.push_back(
          {rangeFromJson(edit.at("range"), *d.file), bytesFromJson(edit.at("replacement"))});
    }
    d.fix = std::move(parsed);
  }
  return d;
}

RegionSummary regionFromJson(const json& value, SourceSet& sources) {
  RegionSummary region;
  region.file = sources.get(bytesFromJson(value.at("path")));
  region.site = rangeFromJson(value.at("site"), *region.file);
  region.kind = value.at("kind").get<std::string>();
  region.function = value.at("function").get<std::string>();
  region.reaches = value.at("reaches").get<std::vector<std::string>>();
  for (const json& call : value.at("unresolved")) {
    UnresolvedCall parsed;
    parsed.file = sources.get(bytesFromJson(call.at(0)));
    parsed.range = rangeFromJson(call.at(1), *parsed.file);
    parsed.text = bytesFromJson(call.at(2));
    parsed.reason = bytesFromJson(call.at(3));
    region.unresolved.push_back(std::move(parsed));
  }
  return region;
}

}  // namespace

void pruneResultCache(const std::string& directory, std::uint64_t max_bytes) {
  pruneCacheDirectory(directory, max_bytes);
}

namespace {

json fileRecord(const std::string& path, bool accepted, bool lowered, std::uint64_t hash,
                const std::optional<FileStamp>& stat) {
  FileStamp fields = stat.value_or(FileStamp{});
  return json::array({bytesToJson(path), accepted, lowered, hash, fields.size, fields.mtime_ns,
                      fields.ctime_ns, fields.inode});
}

}  // namespace

ResultCache::ResultCache(std::string directory, std::string key)
    : directory_(std::move(directory)), key_(std::move(key)), started_ns_(wallClockNs()) {
  entry_path_ = directory_ + "/run-" + hexHash(contentHash(key_)) + ".entry";
}

std::optional<RunResult> ResultCache::load(const std::vector<std::string>& paths,
                                           const AnalysisSettings& settings,
                                           const IrrelevanceTest& still_irrelevant) {
  std::optional<std::string> payload = readCacheEntry(entry_path_, kMagic);
  if (!payload) return std::nullopt;
  try {
    std::optional<json> parsed = parseEntryJson(*payload);
    if (!parsed || !hasExactly(*parsed, {"key", "written_ns", "files", "dependencies", "result"})) {
      return std::nullopt;
    }
    json& entry = *parsed;
    if (bytesFromJson(entry.at("key")) != key_) return std::nullopt;
    json& files = entry.at("files");
    if (!files.is_array() || files.size() != paths.size()) return std::nullopt;
    std::int64_t written_ns = entry.at("written_ns").get<std::int64_t>();
    std::map<std::string, std::uint64_t> hashes;
    bool refreshed = false;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      json& record = files[i];
      if (bytesFromJson(record.at(0)) != paths[i]) return std::nullopt;
      bool accepted = record.at(1).get<bool>();
      bool lowered = record.at(2).get<bool>();
      std::uint64_t hash = record.at(3).get<std::uint64_t>();
      FileStamp recorded{record.at(4).get<std::uint64_t>(), record.at(5).get<std::int64_t>(),
                          record.at(6).get<std::int64_t>(), record.at(7).get<std::uint64_t>()};
      if (accepted) hashes.emplace(paths[i], hash);
      std::optional<FileStamp> now = stampFile(paths[i]);
      if (!now) return std::nullopt;
      bool racy = racyStamp(recorded, written_ns);
      if (*now == recorded && !racy) continue;
      // Changed, or not provably unchanged: read it.
      if (!accepted) return std::nullopt;
      std::vector<Notice> notices;
      SourceFilePtr file = readSource(paths[i], settings, notices);
      if (!file || !notices.empty()) return std::nullopt;
      std::uint64_t current = contentHash(file->text());
      if (current != hash) {
        if (lowered || !still_irrelevant(*file)) return std::nullopt;
        hashes[paths[i]] = current;
      }
      record = fileRecord(paths[i], true, lowered, current, now);
      refreshed = true;
    }

    // Headers and compile databases: unchanged, or the entry proves nothing.
    for (json& record : entry.at("dependencies")) {
      if (!dependencyUnchanged(record, written_ns, refreshed)) return std::nullopt;
    }

    const json& cached = entry.at("result");
    if (!hasExactly(cached,
                    {"files_analyzed", "suppressed", "notices", "diagnostics", "regions"})) {
      return std::nullopt;
    }
    RunResult result;
    result.files_analyzed = cached.at("files_analyzed").get<std::size_t>();
    result.suppressed = cached.at("suppressed").get<std::size_t>();
    for (const json& notice : cached.at("notices")) {
      if (!notice.is_array() || notice.size() != 4) return std::nullopt;
      result.notices.push_back({bytesFromJson(notice.at(0)), notice.at(1).get<std::int32_t>(),
                                bytesFromJson(notice.at(2)), notice.at(3).get<bool>()});
    }
    SourceSet sources(hashes, settings);
    for (const json& diagnostic : cached.at("diagnostics")) {
      result.diagnostics.push_back(diagnosticFromJson(diagnostic, sources));
    }
    for (const json& region : cached.at("regions")) {
      result.regions.push_back(regionFromJson(region, sources));
    }
    if (refreshed) {
      entry["written_ns"] = started_ns_;
      writeEntry(directory_, entry_path_, entry);
    } else {
      // Least recently used: a hit counts as a use.
      std::error_code ec;
      fs::last_write_time(entry_path_, fs::file_time_type::clock::now(), ec);
    }
    return result;
  } catch (const Unusable&) {
    return std::nullopt;
  } catch (const std::exception&) {  // malformed JSON, wrong types, missing fields
    return std::nullopt;
  }
}

void ResultCache::store(const std::vector<CachedFileState>& files, const RunResult& result,
                        const std::vector<std::string>& dependencies) {
  try {
    json records = json::array();
    for (const CachedFileState& file : files) {
      records.push_back(fileRecord(file.path, file.accepted, file.lowered, file.content_hash,
                                   stampFile(file.path)));
    }
    json dependency_records = json::array();
    for (const std::string& path : dependencies) {
      std::optional<json> record = dependencyRecordNow(path);
      if (!record) return;  // gone already: nothing to prove a later run by
      dependency_records.push_back(std::move(*record));
    }
    json notices = json::array();
    for (const Notice& notice : result.notices) {
      notices.push_back(json::array(
          {bytesToJson(notice.path), notice.line, bytesToJson(notice.message), notice.incomplete}));
    }
    json diagnostics = json::array();
    for (const Diagnostic& d : result.diagnostics) diagnostics.push_back(diagnosticToJson(d));
    json regions = json::array();
    for (const RegionSummary& region : result.regions) regions.push_back(regionToJson(region));
    json entry = {{"key", bytesToJson(key_)},
                  {"written_ns", started_ns_},
                  {"files", std::move(records)},
                  {"dependencies", std::move(dependency_records)},
                  {"result",
                   {{"files_analyzed", result.files_analyzed},
                    {"suppressed", result.suppressed},
                    {"notices", std::move(notices)},
                    {"diagnostics", std::move(diagnostics)},
                    {"regions", std::move(regions)}}}};
    writeEntry(directory_, entry_path_, entry);
    pruneResultCache(directory_, kResultCacheMaxBytes);
  } catch (const std::exception&) {
    // Out of memory or a filesystem error: the run's result stands without its entry.
  }
}

// Every setting changes what the analysis finds, so every one enters the key. This fails to
// compile when AnalysisSettings gains a field: add it to the key below, then update the size.
static_assert(sizeof(AnalysisSettings) ==
                  6 * sizeof(std::vector<std::string>) +
                      sizeof(std::vector<std::pair<std::string, std::string>>) +
                      4 * sizeof(std::size_t) + 2 * sizeof(std::string) + 16,
              "a new AnalysisSettings field must enter analysisSettingsKey() (result_cache.cpp)");

std::string analysisSettingsKey(const AnalysisSettings& s) {
  std::ostringstream key;
  for (const std::string& entry : s.capture_entry_points) key << "entry " << entry << "\n";
  for (const std::string& api : s.extra_sync_apis) key << "sync " << api << "\n";
  for (const std::string& api : s.extra_state_apis) key << "state " << api << "\n";
  for (const std::string& flag : s.capture_flags) key << "capture-flag " << flag << "\n";
  for (const auto& [name, value] : s.environment) {
    key << "environment " << name << "=" << value.size() << ":" << value << "\n";
  }
  key << "limits " << s.max_file_bytes << " " << s.parse_timeout_ms << " "
      << s.max_parse_memory_bytes << " " << s.show_compiler_errors << "\n";
  key << "cxx " << s.compile_commands_dir << " " << s.cuda_path << " " << s.cxx_timeout_ms << " "
      << s.cxx_memory_bytes << "\n";
  for (const std::string& arg : s.extra_args_before)
    key << "cxx-before " << arg.size() << ":" << arg << "\n";
  for (const std::string& arg : s.extra_args)
    key << "cxx-after " << arg.size() << ":" << arg << "\n";
  for (const char* name :
       {"GRAPHSAFE_CUDA_FRONTEND", "GRAPHSAFE_CUDA_PREFILTER", "GRAPHSAFE_CUDA_PATH"}) {
    const char* value = std::getenv(name);
    key << "env " << name << "=" << (value ? value : "") << "\n";
  }
  return key.str();
}

std::string runCacheKey(const EngineOptions& options) {
  std::ostringstream key;
  key << "graphsafe " << GRAPHSAFE_VERSION << "\n";
  // The build: a rebuilt binary may analyze differently under the same version number.
  if (auto self = stampFile("/proc/self/exe")) {
    key << "build " << self->size << " " << self->mtime_ns << "\n";
  }
  std::error_code ec;
  key << "cwd " << fs::current_path(ec).string() << "\n";
  for (const std::string& path : options.paths) key << "path " << path << "\n";
  for (const std::string& code : options.selection.select) key << "select " << code << "\n";
  for (const std::string& code : options.selection.ignore) key << "ignore " << code << "\n";
  for (const std::string& pattern : options.exclude) key << "exclude " << pattern << "\n";
  if (options.report_regions) key << "regions\n";
  if (options.report_unused_suppressions) key << "unused-suppressions\n";
  if (options.force_exclude) key << "force-exclude\n";
  for (const PerFileIgnore& ignore : options.per_file_ignores) {
    key << "per-file-ignore " << ignore.base << " " << ignore.pattern;
    for (const std::string& code : ignore.codes) key << " " << code;
    key << "\n";
  }
  for (const auto& [prefix, severity] : options.severity_overrides) {
    key << "severity " << prefix << " " << severityName(severity) << "\n";
  }
  key << analysisSettingsKey(options.settings);
  return key.str();
}

}  // namespace graphsafe
