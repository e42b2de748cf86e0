#pragma once

// Does a host value that captured code reads change between two replays of its graph, and
// why? The answer joins what the capture read with what the region's replay cycle
// (replay_cycle.h) writes:
//   - a field of an object (`inference_params.seqlen_offset`, `self.temperature`,
//     `self.layer.scaling[name]`): a write of that field, through any reference to an object
//     the read may denote, on the cycle;
//   - a local of the capturing function (`lr`, a loop variable): bound again after the capture
//     and before a replay, or on another iteration of a loop that replays what one captured;
//   - a parameter: what the call path passed (resolved in the caller), or, for a function that
//     captures lazily, whatever a later call passes, unless the graphs are cached by it;
//   - a module global rebound by a function (`global X`);
//   - library values: clocks, random numbers, an optimizer's settings, a scheduler's rate;
//   - what an operator, a container or a program function's return computes from those.
// An object the model cannot name, a write it cannot place, stays quiet.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/capture_model.h"

namespace graphsafe {

class ProgramModel;

// Why a value varies, for a finding's message and its related location.
struct Variation {
  ValueOrigin origin = ValueOrigin::kNone;
  std::string reason;  // "it is advanced at decode.py:225 (`...`), in the loop that replays ..."
  SourceFilePtr file;  // where it changes, when one place does (null otherwise)
  SourceRange at;
  std::string note;  // the related location's message
};

// Where captured code reads a value: the region, the function and its frame on the call path,
// and what the path binds to the function's parameters (values resolved in the caller, carrying
// their own variations).
struct ReadSite {
  const FileModel* region_file = nullptr;
  std::size_t region = 0;
  const FileModel* file = nullptr;
  const FunctionModel* function = nullptr;
  std::uint32_t frame = 0;
  bool root = true;  // the region's own code: no call on the way
  std::span<const Value> params;
};

namespace program {

struct CycleSpan;

// A write on a region's replay cycle of a field a capture read: `write` of `file` (an attribute
// write, or an item write when `item` is set), and the span of the cycle it is on.
struct FieldWrite {
  const FileModel* file = nullptr;
  const FunctionModel* function = nullptr;
  const AttributeWrite* write = nullptr;
  const ElementWrite* item = nullptr;
  const CycleSpan* span = nullptr;
};

// The writes on the cycle of `site`'s region of field `name` (its items too, with `items`) of
// the objects `object` (a reference of the site's file) may denote there. Writes seen on the
// cycle come before those assumed for the capturing object's methods.
std::vector<FieldWrite> fieldWritesOnCycle(const ProgramModel& program, const ReadSite& site,
                                           RefId object, std::string_view name, bool items);

class ReplayVariance {
 public:
  // Reference visits per question at most: a value built from thousands of others says
  // nothing more than its first few hundred.
  static constexpr int kMaxVisits = 512;
  static constexpr int kMaxDepth = 16;
  // Calls deep that a program function's result is followed into its body.
  static constexpr int kMaxReturnDepth = 2;

  explicit ReplayVariance(const ProgramModel& program) : program_(program) {}

  std::optional<Variation> of(const ReadSite& site, RefId ref);

 private:
  std::optional<Variation> vary(const ReadSite& site, RefId ref, int depth);
  std::optional<Variation> local(const ReadSite& site, const Reference& local);
  std::optional<Variation> parameter(const ReadSite& site, const Reference& parameter);
  std::optional<Variation> field(const ReadSite& site, RefId object, std::string_view name,
                                 bool element);
  std::optional<Variation> global(const ReadSite& site, std::string_view dotted);
  std::optional<Variation> call(const ReadSite& site, const Reference& call, int depth);
  std::optional<Variation> library(const ReadSite& site, const Reference& reference);

  const ProgramModel& program_;
  int visits_ = 0;
  int return_depth_ = 0;
};

}  // namespace program
}  // namespace graphsafe
