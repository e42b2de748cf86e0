#include "analyzer/engine/unit_cache.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "analyzer/engine/cache_files.h"
#include "analyzer/engine/cuda_frontend_loader.h"
#include "analyzer/io/atomic_write.h"
#include "analyzer/io/file_stamp.h"
#include "analyzer/io/json_bytes.h"
#include "analyzer/model/model_codec.h"

namespace graphsafe {

namespace {

using nlohmann::json;

constexpr const char* kMagic = UnitCache::kEntryMagic;

// What a rebuilt binary or module changes: its size and modification time.
std::string buildStamp(const std::string& path) {
  std::optional<FileStamp> stamp = path.empty() ? std::nullopt : stampFile(path);
  if (!stamp) return path + " -";
  return path + " " + std::to_string(stamp->size) + " " + std::to_string(stamp->mtime_ns);
}

}  // namespace

UnitCache::UnitCache(std::string directory, std::string key)
    : directory_(std::move(directory)), started_ns_(wallClockNs()) {
  key_ = std::move(key) + "binary " + buildStamp("/proc/self/exe") + "\nmodule " +
         buildStamp(loadedCudaFrontendModule()) + "\n";
  std::error_code ec;
  cwd_ = std::filesystem::current_path(ec).string();
}

std::string UnitCache::unitKey(const std::string& unit) const {
  // A relative path (and the relative paths of the headers it records) means a file of the
  // working directory: the same spelling in another directory is another unit.
  const bool relative = unit.empty() || unit.front() != '/';
  return key_ + (relative ? "cwd " + cwd_ + "\n" : std::string()) + "unit " + unit + "\n";
}

std::string UnitCache::entryPath(const std::string& unit) const {
  return directory_ + "/unit-" + hexHash(contentHash(unitKey(unit))) + ".entry";
}

std::optional<FileModel> UnitCache::load(const SourceFilePtr& source) const {
  const std::string path = entryPath(source->path());
  std::optional<std::string> payload = readCacheEntry(path, kMagic);
  if (!payload) return std::nullopt;
  try {
    // The payload: a line of JSON saying what the model was built from, then the model.
    std::size_t end = payload->find('\n');
    if (end == std::string::npos) return std::nullopt;
    std::optional<json> parsed = parseEntryJson(std::string_view(*payload).substr(0, end));
    if (!parsed || !parsed->is_object() || parsed->size() != 6) return std::nullopt;
    json& header = *parsed;
    if (bytesFromJson(header.at("key")) != unitKey(source->path()) ||
        bytesFromJson(header.at("unit")) != source->path() ||
        header.at("hash").get<std::uint64_t>() != contentHash(source->text()) ||
        header.at("size").get<std::size_t>() != source->text().size()) {
      return std::nullopt;
    }
    std::int64_t written_ns = header.at("written_ns").get<std::int64_t>();
    bool refreshed = false;
    for (json& record : header.at("dependencies")) {
      if (!dependencyUnchanged(record, written_ns, refreshed)) return std::nullopt;
    }
    std::string error;
    std::optional<FileModel> model =
        decodeFileModel(std::string_view(*payload).substr(end + 1), source, error);
    if (!model) return std::nullopt;
    if (refreshed) {
      header["written_ns"] = started_ns_;
      writeCacheEntry(directory_, path, kMagic, header.dump() + "\n" + payload->substr(end + 1));
    } else {
      // Least recently used: a hit counts as a use.
      std::error_code ec;
      std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now(), ec);
    }
    return model;
  } catch (const std::exception&) {  // malformed JSON, wrong types, missing fields
    return std::nullopt;
  }
}

void UnitCache::store(const FileModel& model) const {
  if (!model.source || model.parse_failed || !model.includes_complete ||
      model.language != Language::kCuda) {
    return;
  }
  try {
    json dependencies = json::array();
    std::vector<std::string> paths = model.includes;
    if (!model.compile_database.empty()) paths.push_back(model.compile_database);
    if (!model.flags_from.empty()) paths.push_back(model.flags_from);
    for (const std::string& path : paths) {
      std::optional<json> record = dependencyRecordNow(path);
      if (!record) return;  // gone already: nothing to prove a later run by
      dependencies.push_back(std::move(*record));
    }
    json header = {{"key", bytesToJson(unitKey(model.source->path()))},
                   {"unit", bytesToJson(model.source->path())},
                   {"hash", contentHash(model.source->text())},
                   {"size", model.source->text().size()},
                   {"written_ns", started_ns_},
                   {"dependencies", std::move(dependencies)}};
    writeCacheEntry(directory_, entryPath(model.source->path()), kMagic,
                    header.dump(-1, ' ', false, json::error_handler_t::replace) + "\n" +
                        encodeFileModel(model));
  } catch (const std::exception&) {
    // Out of memory or a filesystem error: the run's result stands without the entry.
  }
}

}  // namespace graphsafe
