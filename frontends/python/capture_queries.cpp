// Branches that ask whether the stream is being captured (GS104's subject): the condition holds
// the answer of torch.cuda.is_current_stream_capturing(), directly, through a local name, through
// a helper of this file that returns it, or through a flag the configuration declares
// (`capture-flags`: a module global, a function, or `.attr` of any object). Such a branch is marked
// kFlagCaptureDependent, and kFlagSidesDiffer when its sides enqueue different device work; sides
// that differ only in how the host or the device waits (a GPU sleep instead of a host sleep, a sync
// or none) are the same work.
#include <algorithm>

#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

constexpr std::string_view kCaptureQueryApi = "torch.cuda.is_current_stream_capturing";

// Ops that only make the device wait: choosing them under capture changes no result.
bool isWaitOnly(std::string_view api) {
  return api == "torch.cuda._sleep" || api == "torch.cuda.sleep";
}

}  // namespace

bool FunctionLowering::returnsCaptureQuery(FunctionId function) const {
  if (function >= file_.index.functions.size()) return false;
  if (auto known = file_.returns_capture_query.find(function);
      known != file_.returns_capture_query.end()) {
    return known->second;
  }
  const bool returns = bodyReturnsCaptureQuery(function);
  file_.returns_capture_query.emplace(function, returns);
  return returns;
}

bool FunctionLowering::bodyReturnsCaptureQuery(FunctionId function) const {
  const FunctionDecl& callee = file_.index.functions[function];
  if (callee.is_lambda || isNull(callee.node)) return false;
  // def capturing(): return torch.cuda.is_current_stream_capturing(), also as
  // `torch.cuda.is_available() and torch.cuda.is_current_stream_capturing()` (true exactly while
  // capturing too).
  auto api = [&](TSNode call) -> std::string {
    if (!is(call, g_.call)) return {};
    std::string qualified =
        importedName(field(call, g_.f_function), file_.pool, file_.text, file_.index.imports,
                     [](std::string_view) { return false; });
    return std::string(canonicalApiName(qualified));
  };
  bool returns_query = false;
  for (Children it(file_.pool, field(callee.node, g_.f_body)); it.valid(); it.next()) {
    TSNode statement = it.node();
    if (!is(statement, g_.return_statement)) continue;
    TSNode value = unparenthesize(file_.pool, firstNamedChild(file_.pool, statement));
    if (is(value, g_.boolean_operator) && textOf(field(value, g_.f_operator)) == "and" &&
        api(unparenthesize(file_.pool, field(value, g_.f_left))) == "torch.cuda.is_available") {
      value = unparenthesize(file_.pool, field(value, g_.f_right));
    }
    if (api(value) != kCaptureQueryApi) return false;
    returns_query = true;
  }
  return returns_query;
}

bool FunctionLowering::isCaptureFlag(TSNode node) const {
  node = unparenthesize(file_.pool, node);
  // A function the configuration names returns the answer: the call holds it.
  if (is(node, g_.call)) node = unparenthesize(file_.pool, field(node, g_.f_function));
  const bool attribute = is(node, g_.attribute);
  if (!attribute && !is(node, g_.identifier)) return false;
  std::string qualified = importedNameOf(node);
  if (qualified.empty() && !attribute && !file_.model.module_name.empty() &&
      (id_ == 0 || findLocal(textOf(node)) == nullptr)) {
    qualified = file_.model.module_name + "." + std::string(textOf(node));  // this module's
  }
  std::string_view name = attribute ? textOf(field(node, g_.f_attribute)) : std::string_view{};
  for (const std::string& flag : file_.settings.capture_flags) {
    if (flag.starts_with('.') ? (attribute && name == flag.substr(1)) : qualified == flag) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> FunctionLowering::deviceWork(std::size_t begin, std::size_t end) const {
  std::vector<std::string> work;
  for (std::size_t i = begin; i < end && i < events_.size(); ++i) {
    const Event& event = events_[i];
    if (event.kind != EventKind::kTensorOp && event.kind != EventKind::kInPlaceUpdate) continue;
    if (isWaitOnly(event.api) || (event.flags & kFlagUntypedReceiver) != 0) continue;
    work.push_back(event.api + "\n" + event.text);
  }
  std::sort(work.begin(), work.end());
  return work;
}

void FunctionLowering::markCaptureBranch(std::size_t condition_begin, std::size_t condition_end,
                                         std::size_t side_end, std::size_t branch_end) {
  if (quiet()) return;
  Event* branch = nullptr;
  for (std::size_t i = condition_begin; i < condition_end && i < events_.size(); ++i) {
    Event& event = events_[i];
    if (event.kind == EventKind::kBranch && event.subject.origin == ValueOrigin::kCaptureQuery) {
      branch = &event;
      break;
    }
  }
  if (branch == nullptr) return;
  branch->flags |= kFlagCaptureDependent;
  if (deviceWork(condition_end, side_end) != deviceWork(side_end, branch_end)) {
    branch->flags |= kFlagSidesDiffer;
  }
}

}  // namespace graphsafe::python
