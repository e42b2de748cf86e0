// State set around code that is not a capture, and facts about the memory an op reads:
//   - `with torch.autocast("cuda")` / `torch.cuda.amp.autocast()` blocks, and whether their cast
//     cache is on (cache_enabled not given, or True; enabled not False), for GS204;
//   - `with torch.cuda.stream(s)` blocks and waits between streams (`s2.wait_stream(s1)`,
//     `s.wait_event(e)`), for GS502;
//   - ops that autocast casts (matmul, linear, conv) reading a leaf that requires grad (a factory
//     with requires_grad=True, an nn.Parameter, a torch.nn module's weight), and calls of
//     torch.nn modules that hold such weights: kFlagReadsWeights, for GS204.
// Pinned host tensors (pin_memory=True, .pin_memory()) are marked where they are bound
// (flow_lowering.cpp), for GS501.
#include <array>

#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

bool isAutocastApi(std::string_view canonical) {
  return canonical == "torch.autocast" || canonical == "torch.amp.autocast" ||
         canonical == "torch.amp.autocast_mode.autocast" ||
         canonical == "torch.cuda.amp.autocast" ||
         canonical == "torch.cuda.amp.autocast_mode.autocast";
}

// Ops autocast runs in lower precision, casting their operands (and caching the cast of a leaf).
bool isCastFunction(std::string_view canonical) {
  static constexpr std::array<std::string_view, 16> kNames = {
      "torch.matmul",
      "torch.mm",
      "torch.bmm",
      "torch.addmm",
      "torch.addbmm",
      "torch.baddbmm",
      "torch.addmv",
      "torch.mv",
      "torch.chain_matmul",
      "torch.nn.functional.linear",
      "torch.nn.functional.bilinear",
      "torch.nn.functional.conv1d",
      "torch.nn.functional.conv2d",
      "torch.nn.functional.conv3d",
      "torch.nn.functional.conv_transpose2d",
      "torch.einsum",
  };
  for (std::string_view name : kNames) {
    if (canonical == name) return true;
  }
  return false;
}

bool isCastMethod(std::string_view name) {
  return name == "matmul" || name == "mm" || name == "bmm" || name == "mv" ||
         name == "__matmul__" || name == "addmm" || name == "baddbmm";
}

}  // namespace

bool hasCastWeights(std::string_view canonical) {
  static constexpr std::array<std::string_view, 8> kPrefixes = {
      "torch.nn.Linear",   "torch.nn.LazyLinear", "torch.nn.Bilinear", "torch.nn.Conv",
      "torch.nn.LazyConv", "torch.nn.LSTM",       "torch.nn.GRU",      "torch.nn.RNN",
  };
  for (std::string_view prefix : kPrefixes) {
    if (canonical.starts_with(prefix)) return true;
  }
  return canonical == "torch.nn.MultiheadAttention" ||
         canonical.starts_with("torch.nn.Transformer");
}

void FunctionLowering::noteAutocastBlock(TSNode item, std::string_view canonical) {
  if (quiet() || !isAutocastApi(canonical)) return;
  CallArguments arguments;
  readArguments(file_.pool, file_.text, field(item, g_.f_arguments), arguments);
  if (arguments.has_splat) return;
  auto literal = [&](std::string_view name, int position, bool absent) {
    TSNode node = arguments.find(name, position);
    if (isNull(node)) return absent;
    return is(unparenthesize(file_.pool, node), g_.true_literal);
  };
  bool cuda = canonical.starts_with("torch.cuda.");
  if (!cuda) {
    std::string_view device;
    TSNode node = arguments.find("device_type", 0);
    cuda = !isNull(node) &&
           plainStringValue(file_.pool, file_.text, unparenthesize(file_.pool, node), device) &&
           (device == "cuda" || device.starts_with("cuda:"));
  }
  ContextBlock block;
  block.kind = ContextBlock::Kind::kAutocast;
  block.site = file_.text.range(item);
  block.span = block.site;
  block.subject = file_.text.brief(item);
  // torch.cuda.amp.autocast(enabled, dtype, cache_enabled); torch.autocast(device_type,
  // dtype, enabled, cache_enabled).
  int enabled_at = canonical.starts_with("torch.cuda.") ? 0 : 2;
  block.caches = cuda && literal("enabled", enabled_at, true) &&
                 literal("cache_enabled", enabled_at + 2, true);
  file_.model.functions[id_].contexts.push_back(std::move(block));
}

void FunctionLowering::noteStreamBlock(TSNode item, TSNode stream) {
  if (quiet()) return;
  ContextBlock block;
  block.kind = ContextBlock::Kind::kStream;
  block.site = file_.text.range(item);
  block.span = block.site;
  if (!isNull(stream)) block.subject = file_.text.brief(stream);
  file_.model.functions[id_].contexts.push_back(std::move(block));
}

void FunctionLowering::closeContextBlocks(std::size_t first, std::size_t count, TSNode with) {
  auto& contexts = file_.model.functions[id_].contexts;
  for (std::size_t i = first; i < first + count && i < contexts.size(); ++i) {
    contexts[i].span = file_.text.range(with);
  }
}

void FunctionLowering::noteStreamWait(const Callee& callee, TSNode call, TSNode other) {
  if (quiet()) return;
  ContextBlock block;
  block.kind = ContextBlock::Kind::kStreamWait;
  block.site = file_.text.range(call);
  block.span = block.site;
  block.subject = file_.text.brief(callee.receiver_node);
  if (!isNull(other)) block.other = file_.text.brief(other);
  file_.model.functions[id_].contexts.push_back(std::move(block));
}

std::uint32_t FunctionLowering::weightFlags(std::string_view api, const ExprInfo* receiver,
                                            const Arguments& arguments) const {
  bool cast = receiver == nullptr ? isCastFunction(api) : isCastMethod(api);
  if (!cast) return kFlagNone;
  bool leaf = receiver != nullptr && receiver->leaf;
  for (const ExprInfo& info : arguments.positional) leaf = leaf || info.leaf;
  for (const ExprInfo& info : arguments.keywords) leaf = leaf || info.leaf;
  return leaf ? kFlagReadsWeights : kFlagNone;
}

void FunctionLowering::noteModuleCall(const ExprInfo& module, TSNode call) {
  if (quiet() || !module.leaf) return;
  // No code of the program runs: a call with no callee, that nothing follows.
  Event& event = emit(EventKind::kCall, call);
  event.api = "torch.nn.Module.__call__";
  event.text = file_.text.brief(call);
  event.flags = kFlagReadsWeights;
}

namespace {

void noteThread(FileLowering& file, FunctionId id, ContextBlock::Kind kind, TSNode call,
                const ExprInfo* target, TSNode target_node) {
  ContextBlock block;
  block.kind = kind;
  block.site = file.text.range(call);
  block.span = block.site;
  if (target != nullptr) block.function = target->function;
  if (!isNull(target_node)) block.subject = file.text.brief(target_node);
  file.model.functions[id].contexts.push_back(std::move(block));
}

bool isThreadPool(std::string_view canonical) {
  return canonical == "concurrent.futures.ThreadPoolExecutor" ||
         canonical == "concurrent.futures.thread.ThreadPoolExecutor" ||
         canonical == "multiprocessing.pool.ThreadPool" ||
         canonical == "multiprocessing.dummy.Pool";
}

}  // namespace

bool FunctionLowering::noteThreadApi(std::string_view canonical, TSNode call,
                                     const Arguments& arguments, ExprInfo& result) {
  if (isThreadPool(canonical)) {
    result.thread_pool = true;
    return true;
  }
  if (canonical != "threading.Thread") return false;
  const ExprInfo* target = arguments.find("target", 1);
  if (!quiet() && target != nullptr && target->function != kNoFunction) {
    noteThread(file_, id_, ContextBlock::Kind::kThread, call, target,
               arguments.syntax.find("target", 1));
  }
  return true;
}

void FunctionLowering::noteThreadMethod(const Callee& callee, TSNode call,
                                        const Arguments& arguments) {
  if (quiet()) return;
  std::string_view name = callee.name;
  if (callee.receiver.thread_pool && (name == "submit" || name == "map" || name == "imap" ||
                                      name == "apply_async" || name == "map_async")) {
    const ExprInfo* target = arguments.find("fn", 0);
    if (target != nullptr && target->function != kNoFunction) {
      noteThread(file_, id_, ContextBlock::Kind::kThread, call, target,
                 arguments.syntax.find("fn", 0));
    }
    return;
  }
  // t.join(), pool.shutdown(): the other thread is done (str.join takes an argument).
  if ((name == "join" && arguments.syntax.positional.empty()) || name == "shutdown") {
    noteThread(file_, id_, ContextBlock::Kind::kThreadJoin, call, nullptr, callee.receiver_node);
  }
}

}  // namespace graphsafe::python
