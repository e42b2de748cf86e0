#include "analyzer/engine/stream_handoffs.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "analyzer/model/stream_wording.h"

namespace graphsafe {

namespace {

// Launchers calling launchers: followed this many calls deep.
constexpr int kMaxRounds = 8;

struct FunctionAt {
  std::size_t file = 0;
  FunctionId function = 0;
};

// Where a parameter's stream is used, once known: the first use found.
struct Use {
  SourceRange at;
  std::string api;
  std::size_t file = 0;
  bool handed_on = false;  // a call hands the stream on; otherwise the work itself
};

class Handoffs {
 public:
  explicit Handoffs(std::vector<FileModel>& models) : models_(models) {
    for (std::size_t i = 0; i < models.size(); ++i) {
      if (models[i].language != Language::kCuda) continue;
      for (FunctionId f = 0; f < models[i].functions.size(); ++f) {
        const FunctionModel& function = models[i].functions[f];
        by_name_[function.qualified_name].push_back({i, f});
        for (const StreamParameterUse& use : function.stream_params) {
          uses_[key(i, f)].try_emplace(use.param, Use{use.at, use.api, i, false});
        }
      }
    }
  }

  void run() {
    closeOverCalls();
    for (std::size_t i = 0; i < models_.size(); ++i) {
      if (models_[i].language != Language::kCuda) continue;
      for (FunctionId f = 0; f < models_[i].functions.size(); ++f) addStreamUses(i, f);
    }
  }

 private:
  static std::uint64_t key(std::size_t file, FunctionId function) {
    return (static_cast<std::uint64_t>(file) << 32) | function;
  }

  // The functions a call runs: the one of its own file lowering resolved, else every function
  // of the program defined under the callee's qualified name.
  std::vector<FunctionAt> targets(std::size_t file, const Event& call) const {
    if (call.callee != kNoFunction) return {{file, call.callee}};
    if (call.callee_qualified.empty()) return {};
    auto it = by_name_.find(call.callee_qualified);
    return it == by_name_.end() ? std::vector<FunctionAt>{} : it->second;
  }

  const Use* useOf(const FunctionAt& target, std::uint32_t param) const {
    auto function = uses_.find(key(target.file, target.function));
    if (function == uses_.end()) return nullptr;
    auto use = function->second.find(param);
    return use == function->second.end() ? nullptr : &use->second;
  }

  // A parameter handed on to one that receives work receives work too.
  void closeOverCalls() {
    for (int round = 0; round < kMaxRounds; ++round) {
      bool grew = false;
      for (std::size_t i = 0; i < models_.size(); ++i) {
        if (models_[i].language != Language::kCuda) continue;
        for (FunctionId f = 0; f < models_[i].functions.size(); ++f) {
          const FunctionModel& function = models_[i].functions[f];
          for (const StreamHandoff& handoff : function.stream_handoffs) {
            if (handoff.from_param < 0 || handoff.call >= function.events.size()) continue;
            auto& own = uses_[key(i, f)];
            const auto param = static_cast<std::uint32_t>(handoff.from_param);
            if (own.count(param) != 0) continue;
            const Event& call = function.events[handoff.call];
            for (const FunctionAt& target : targets(i, call)) {
              if (useOf(target, handoff.param) == nullptr) continue;
              own.emplace(param, Use{call.range, call.api, i, true});
              grew = true;
              break;
            }
          }
        }
      }
      if (!grew) break;
    }
  }

  void addStreamUses(std::size_t file, FunctionId f) {
    FunctionModel& function = models_[file].functions[f];
    std::vector<std::pair<std::uint32_t, Event>> added;  // inserted after events[first]
    for (const StreamHandoff& handoff : function.stream_handoffs) {
      if (handoff.escape.empty() || handoff.call >= function.events.size()) continue;
      const Event& call = function.events[handoff.call];
      for (const FunctionAt& target : targets(file, call)) {
        const Use* use = useOf(target, handoff.param);
        if (use == nullptr) continue;
        Event event;
        event.kind = EventKind::kStreamUse;
        event.range = call.range;
        event.api = call.api;
        event.region = call.region;
        // Extension code as the call is (its file's unit, or a registered operator's reach).
        event.flags = call.flags & kFlagExtensionCode;
        const std::string where =
            models_[use->file].source->path() + ":" + std::to_string(use->at.start.line + 1);
        event.text = streamThroughParameter(
            handoff.escape, handoff.param_name,
            use->handed_on ? streamHandedOnTo(use->api, where) : streamRunsOnIt(use->api, where));
        added.emplace_back(handoff.call, std::move(event));
        break;
      }
    }
    if (added.empty()) return;
    std::stable_sort(added.begin(), added.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Event> events;
    events.reserve(function.events.size() + added.size());
    std::size_t next = 0;
    for (std::uint32_t e = 0; e < function.events.size(); ++e) {
      events.push_back(std::move(function.events[e]));
      while (next < added.size() && added[next].first == e) {
        events.push_back(std::move(added[next++].second));
      }
    }
    function.events = std::move(events);
    // The indices now point elsewhere; the handoffs are consumed.
    function.stream_handoffs.clear();
  }

  std::vector<FileModel>& models_;
  std::unordered_map<std::string, std::vector<FunctionAt>> by_name_;
  std::unordered_map<std::uint64_t, std::map<std::uint32_t, Use>> uses_;
};

}  // namespace

void followStreamHandoffs(std::vector<FileModel>& models) {
  Handoffs(models).run();
}

}  // namespace graphsafe
