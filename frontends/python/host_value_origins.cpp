// Why a host value read under capture varies between replays, beyond what its binding says:
// the name is bound again after the capture (`lr = LRS[step]` before `g.replay()`), or on a
// later iteration of a loop around a capture that is made only once (the seed's `for i in
// range(6): ... elif i == 3: with torch.cuda.graph(g): ...`). A capture made on every iteration
// of its loop (one graph per batch size) sees each value once: that is not a frozen value.
#include <algorithm>

#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

// Parents walked from a region's site up to a loop around it; deeper nesting is not a shape
// anyone writes.
constexpr int kMaxParentWalk = 512;

using Sites = std::vector<BindingSites::Site>;

// Is there a binding in [begin, end) that can change the value? Binding the literal the value
// was last bound to (`n = 8` on every iteration) changes nothing.
bool hasSiteIn(const Sites& sites, std::uint32_t begin, std::uint32_t end,
               std::string_view same_literal = {}) {
  for (const BindingSites::Site& site : sites) {
    if (site.offset < begin || site.offset >= end) continue;
    if (!same_literal.empty() && site.literal == same_literal) continue;
    return true;
  }
  return false;
}

}  // namespace

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

bool FunctionLowering::capturedOnceIn(TSNode loop, TSNode site) const {
  // Walks from the region's site to the loop: a conditional on the way means the capture does
  // not happen on every iteration, so later iterations replay what an earlier one captured.
  TSNode node = ts_node_parent(site);
  for (int step = 0; step < kMaxParentWalk && !isNull(node); ++step) {
    if (sameNode(node, loop)) return false;
    TSSymbol symbol = ts_node_symbol(node);
    if (symbol == g_.if_statement || symbol == g_.elif_clause || symbol == g_.else_clause ||
        symbol == g_.except_clause || symbol == g_.case_clause) {
      return true;
    }
    node = ts_node_parent(node);
  }
  return false;
}

ExprInfo FunctionLowering::regionRead(TSNode node, ExprInfo info) {
  // A value already known to vary keeps its own reason; only constants can turn out to vary.
  if (mode_ != Mode::kNormal || !host_.sites || info.value.kind != ValueKind::kHostConstant) {
    return info;
  }
  std::int32_t region = currentRegion();
  if (region < 0) return info;
  const RegionExtent* extent = nullptr;
  for (auto it = host_.extents.rbegin(); it != host_.extents.rend(); ++it) {
    if (it->region == region) {
      extent = &*it;
      break;
    }
  }
  if (extent == nullptr) return info;
  const Sites* sites = host_.sites->sitesOf(textOf(node));
  if (sites == nullptr) return info;
  std::uint32_t read = ts_node_start_byte(node);
  // Bound inside the region before this read: the region reads its own value.
  if (hasSiteIn(*sites, extent->begin, read)) return info;
  // The literal of the last binding before the region, when it was one.
  std::string_view literal;
  for (const BindingSites::Site& site : *sites) {
    if (site.offset < extent->begin) literal = site.literal;
  }
  // A loop that captures on every iteration makes one graph per value: bindings after it are
  // not what its graphs read.
  std::uint32_t until = UINT32_MAX;
  for (const BindingSites::Loop& loop : host_.sites->loops()) {
    if (loop.begin < extent->begin && loop.end >= extent->end &&
        !capturedOnceIn(loop.node, extent->site)) {
      until = std::min(until, loop.end);
    }
  }
  ValueOrigin origin = ValueOrigin::kNone;
  if (hasSiteIn(*sites, extent->end, until, literal)) origin = ValueOrigin::kReassigned;
  for (const BindingSites::Loop& loop : host_.sites->loops()) {
    if (origin != ValueOrigin::kNone) break;
    if (loop.begin >= extent->begin || loop.end < extent->end) continue;  // not around it
    if (loop.end > until || !capturedOnceIn(loop.node, extent->site)) continue;
    if (hasSiteIn(*sites, loop.target_begin, loop.target_end)) {
      origin = ValueOrigin::kLoopVariable;
    } else if (hasSiteIn(*sites, loop.begin, extent->begin, literal) ||
               hasSiteIn(*sites, extent->end, loop.end, literal)) {
      origin = ValueOrigin::kReassigned;
    }
  }
  if (origin != ValueOrigin::kNone) info.value = hostVarying(origin);
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

ExprInfo FunctionLowering::optimizerSetting(TSNode subscript, TSNode base, ExprInfo info) const {
  // optimizer.param_groups[0]["lr"], or group["lr"] over the groups: schedulers rewrite these
  // between steps.
  static constexpr std::string_view kSettings[] = {"lr",           "initial_lr", "momentum",
                                                   "weight_decay", "betas",      "eps"};
  if (info.value.isTensor()) return info;
  std::string_view key;
  TSNode index{};
  for (Children it(file_.pool, subscript); it.valid(); it.next()) {
    if (it.field() == g_.f_subscript) index = it.node();
  }
  if (isNull(index) || !plainStringValue(file_.pool, file_.text, index, key)) return info;
  if (std::find(std::begin(kSettings), std::end(kSettings), key) == std::end(kSettings)) {
    return info;
  }
  std::string_view owner = textOf(base);
  if (owner.find("param_groups") == std::string_view::npos &&
      owner.find("group") == std::string_view::npos) {
    return info;
  }
  info.value = hostVarying(ValueOrigin::kOptimizerSetting);
  return info;
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
