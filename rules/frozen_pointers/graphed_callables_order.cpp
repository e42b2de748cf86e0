// GS206 graphed-callables-order: callables graphed together by one make_graphed_callables call
// were captured as all forwards in tuple order, then all backwards in reverse, into one pool;
// memory is assigned as if the program ran them in exactly that order. Judged only where the
// order is known: the forwards (`y1 = graphed[1](x)`, or one name per callable) and the
// backwards of their outputs (`y1.backward()`) in straight-line code of the function that
// graphed them, outside loops, with no branch in between and no backward of anything else.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analyzer/engine/check.h"
#include "analyzer/program/capture_flow.h"

namespace graphsafe {

namespace {

struct Step {
  bool forward = true;
  std::int32_t index = -1;  // position in the graphed tuple
  const Event* event = nullptr;
};

std::string rootOf(const std::string& path) {
  return path.substr(0, path.find('.'));
}

class GraphedCallablesOrderCheck final : public Check {
 public:
  std::string_view id() const override { return "GS206"; }

  void checkFile(const FileModel& file, const ProgramModel& /*program*/,
                 DiagnosticSink& sink) const override {
    if (file.regions.empty()) return;
    CaptureFlow flow(file);
    // Regions of one make_graphed_callables call over a tuple: region -> tuple position.
    std::map<std::uint32_t, std::map<std::size_t, std::int32_t>> calls;
    for (std::size_t r = 0; r < file.regions.size(); ++r) {
      const CaptureRegion& region = file.regions[r];
      if (region.kind != RegionKind::kGraphedCallable || region.tuple_index < 0) continue;
      calls[region.site.begin][r] = region.tuple_index;
    }
    for (const auto& [site, members] : calls) {
      if (members.size() < 2) continue;
      const std::size_t first = members.begin()->first;
      const FunctionModel* home = flow.home(first);
      if (home == nullptr) continue;
      std::vector<Step> steps;
      if (!knownOrder(file, *home, members, steps)) continue;
      // One round runs every callable forward and backward; a loop unrolled by hand runs
      // several rounds, each judged on its own.
      std::vector<Step> round;
      std::set<std::int32_t> forwarded;
      std::set<std::int32_t> outstanding;
      for (const Step& step : steps) {
        round.push_back(step);
        if (step.forward) {
          forwarded.insert(step.index);
          outstanding.insert(step.index);
          continue;
        }
        outstanding.erase(step.index);
        if (!outstanding.empty() || forwarded.size() < members.size()) continue;
        if (!checkOrder(file, file.regions[first], round, sink)) break;
        round.clear();
        forwarded.clear();
      }
      if (!round.empty()) checkOrder(file, file.regions[first], round, sink);
    }
  }

 private:
  // The forwards and backwards after the graphing, in order; false when the order is not known
  // from straight-line code.
  static bool knownOrder(const FileModel& file, const FunctionModel& home,
                         const std::map<std::size_t, std::int32_t>& members,
                         std::vector<Step>& steps) {
    const CaptureRegion& region = file.regions[members.begin()->first];
    std::map<std::string, std::int32_t> outputs;  // name -> the position whose output it is
    std::uint32_t last_branch = 0;
    for (const Event& event : home.events) {
      if (event.range.begin < region.site.end) continue;
      if (event.kind == EventKind::kBranch) last_branch = event.range.begin;
      if (event.kind == EventKind::kBind) {
        if (!region.handle.empty() && event.target == region.handle) break;
        auto member = members.find(static_cast<std::size_t>(std::max(event.output_of, 0)));
        if (event.output_of >= 0 && member != members.end()) {
          outputs[event.target] = member->second;
          steps.push_back({true, member->second, &event});
        } else {
          outputs.erase(event.target);
        }
        continue;
      }
      if (event.kind != EventKind::kCall || event.api != "torch.Tensor.backward") continue;
      auto output = outputs.find(rootOf(event.target));
      if (output == outputs.end()) {
        if (!steps.empty()) return false;  // a backward through something else
        continue;
      }
      steps.push_back({false, output->second, &event});
    }
    if (steps.empty()) return false;
    const std::uint32_t begin = steps.front().event->range.begin;
    const std::uint32_t end = steps.back().event->range.begin;
    if (last_branch > begin && last_branch < end) return false;
    for (const Step& step : steps) {
      for (const SourceRange& loop : home.loops) {
        if (CaptureFlow::contains(loop, step.event->range.begin)) return false;
      }
    }
    return true;
  }

  // Reports the first step out of the captured order; false when it did.
  static bool checkOrder(const FileModel& file, const CaptureRegion& region,
                         const std::vector<Step>& steps, DiagnosticSink& sink) {
    std::int32_t last_forward = -1;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const Step& step = steps[i];
      if (step.forward) {
        if (step.index <= last_forward) {
          report(file, region, step,
                 "the forward of callable " + std::to_string(step.index) +
                     " runs after the forward of callable " + std::to_string(last_forward),
                 sink);
          return false;
        }
        last_forward = step.index;
        continue;
      }
      // A later callable whose forward ran or runs, and whose backward has not run yet.
      for (std::size_t j = 0; j < steps.size(); ++j) {
        const Step& other = steps[j];
        if (!other.forward || other.index <= step.index) continue;
        bool backward_done = false;
        for (std::size_t k = 0; k < i; ++k) {
          backward_done = backward_done || (!steps[k].forward && steps[k].index == other.index);
        }
        if (backward_done) continue;
        std::string what = j < i ? "the backward of callable " + std::to_string(other.index)
                                 : "the forward of callable " + std::to_string(other.index) +
                                       " (line " +
                                       std::to_string(other.event->range.start.line + 1) + ")";
        report(file, region, step,
               "the backward of callable " + std::to_string(step.index) + " runs before " + what,
               sink);
        return false;
      }
    }
    return true;
  }

  static void report(const FileModel& file, const CaptureRegion& region, const Step& step,
                     const std::string& what, DiagnosticSink& sink) {
    std::string message =
        what + ", but make_graphed_callables (line " + std::to_string(region.site.start.line + 1) +
        ") captured all forwards in tuple order, then the backwards in reverse, into one memory "
        "pool: run out of that order, one graph overwrites activations a later one still reads";
    std::vector<RelatedLocation> related;
    related.push_back({file.source, region.site, "graphed together here"});
    sink.reportAt(file.source, step.event->range, std::move(message), std::move(related));
  }
};

}  // namespace

std::unique_ptr<Check> makeGraphedCallablesOrderCheck() {
  return std::make_unique<GraphedCallablesOrderCheck>();
}

}  // namespace graphsafe
