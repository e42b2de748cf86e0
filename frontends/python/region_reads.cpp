// Reads inside a capture region of names the function binds outside it, and what the body binds
// on the way: the region's extent (where a read is inside it), a local read as a reference the
// program model follows (kLocal), `self.x = v` before a capture seen by the read after it, and
// raise-only guards. Whether a value read here changes between replays is the program model's
// answer (analyzer/program/replay_variance.h), not this file's.
#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

void FunctionLowering::openRegionExtent(std::int32_t region, TSNode site) {
  if (region < 0 || isNull(site)) return;
  RegionExtent extent;
  extent.region = region;
  extent.site = site;
  extent.begin = ts_node_start_byte(site);
  extent.end = ts_node_end_byte(site);
  bool with_block = false;
  TSNode node = site;
  for (int step = 0; step < 8 && !isNull(node); ++step) {
    if (is(node, g_.with_statement)) {
      extent.end = ts_node_end_byte(node);
      with_block = true;
      break;
    }
    node = ts_node_parent(node);
  }
  if (!with_block) {
    // capture_begin(): the region runs until the first capture_end() after it in this function.
    TSNode function = decl().node;
    std::string_view all = file_.text.all();
    auto limit =
        isNull(function) ? static_cast<std::uint32_t>(all.size()) : ts_node_end_byte(function);
    std::size_t found = all.find("capture_end", extent.end);
    extent.end = found != std::string_view::npos && found < limit
                     ? static_cast<std::uint32_t>(found)
                     : limit;
  }
  host_.extents.push_back(extent);
  bindingSites();
}

const BindingSites& FunctionLowering::bindingSites() const {
  if (!host_.sites) {
    host_.sites = std::make_unique<BindingSites>();
    TSNode node_of_function = decl().node;
    TSNode body = id_ == 0 ? file_.root : field(node_of_function, g_.f_body);
    host_.sites->collect(body, file_.pool, file_.text);
  }
  return *host_.sites;
}

ExprInfo FunctionLowering::localRead(TSNode node, ExprInfo info) {
  if (mode_ != Mode::kNormal || currentRegion() < 0) return info;
  // Modules, classes, functions and graphs are not values a replay reads.
  if ((info.object != ObjectKind::kNone && info.object != ObjectKind::kTensorTuple) ||
      info.function != kNoFunction || !isNull(info.node)) {
    return info;
  }
  if (findLocal(textOf(node)) == nullptr) return info;
  info.ref = file_.refs.local(id_, textOf(node), info.ref);
  return info;
}

void FunctionLowering::bindLocalAttribute(TSNode target, const ExprInfo& info) {
  // `self.bs = bs` before a capture in the same method: the read sees this value, not what the
  // class's other methods may assign.
  if (mode_ != Mode::kNormal) return;
  ExprInfo bound = info;
  bound.value.text.clear();
  auto [it, inserted] = bindings_.try_emplace(textOf(target), bound);
  if (inserted) return;
  it->second = conditional_depth_ > 0 ? joinedInfo(it->second, bound) : std::move(bound);
}

bool FunctionLowering::localAttribute(TSNode node, ExprInfo& out) const {
  if (mode_ != Mode::kNormal || !is(node, g_.attribute)) return false;
  const ExprInfo* local = findLocal(textOf(node));
  if (local == nullptr) return false;
  out.value = local->value;
  return true;
}

void FunctionLowering::markGuard(TSNode if_statement, std::size_t first_event) {
  // `if workspace.destroyed: raise ...` with no other branch checks a value; it chooses no work.
  TSNode body = field(if_statement, g_.f_consequence);
  bool raises_only = !isNull(body);
  for (Children it(file_.pool, body); it.valid() && raises_only; it.next()) {
    raises_only = is(it.node(), g_.raise_statement);
  }
  for (Children it(file_.pool, if_statement); it.valid() && raises_only; it.next()) {
    raises_only = it.field() != g_.f_alternative;
  }
  if (!raises_only) return;
  for (std::size_t i = first_event; i < events_.size(); ++i) {
    if (events_[i].kind == EventKind::kBranch) events_[i].api = "guard";
  }
}

void FunctionLowering::noteHostBinding(std::string_view name) {
  host_.bound_in[name] = currentRegion();
}

}  // namespace graphsafe::python
