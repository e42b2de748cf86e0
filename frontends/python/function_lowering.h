#pragma once

// One function's lowering: a forward walk over its statements that classifies values, binds
// names, emits events in evaluation order and opens the body regions (with-graph blocks,
// capture_begin/capture_end spans). Statements and expressions are in event_lowering.cpp,
// what a call means in call_lowering.cpp.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frontends/python/call_arguments.h"
#include "frontends/python/file_lowering.h"
#include "frontends/python/flow_state.h"
#include "frontends/python/host_facts.h"
#include "frontends/python/python_apis.h"
#include "frontends/python/shape_arguments.h"

namespace graphsafe::python {

// Does this torch.nn module class hold weights that autocast casts (Linear, Conv*, RNNs)?
// (context_lowering.cpp)
bool hasCastWeights(std::string_view canonical);

class FunctionLowering {
 public:
  enum class Mode : std::uint8_t {
    kNormal,            // events, regions, final bindings
    kRecordAttributes,  // no events: records what the method assigns to self.<name>
  };

  FunctionLowering(FileLowering& file, FunctionId id, Mode mode);
  void run();

 private:
  // A call's arguments, evaluated once, in order.
  struct Arguments {
    CallArguments syntax;
    std::vector<ExprInfo> positional;
    std::vector<ExprInfo> keywords;  // parallel to syntax.keywords
    const ExprInfo* find(std::string_view name, int position = -1) const;
  };

  // What a call's callee turned out to be.
  struct Callee {
    enum class Kind : std::uint8_t {
      kUnknown,
      kFunction,
      kClass,
      kApi,
      kBuiltin,
      kMethod,
      kSuperMethod,
      kValue
    };
    Kind kind = Kind::kUnknown;
    FunctionId function = kNoFunction;
    std::int32_t class_index = -1;
    std::string qualified;  // kApi
    BuiltinKind builtin = BuiltinKind::kNone;
    std::string_view name;  // kBuiltin / kMethod / kSuperMethod
    ExprInfo receiver;      // kMethod: the object; kValue: the called value
    RefId ref = kNoRef;     // the callee expression, for the program model
    TSNode receiver_node{};
    TSNode name_node{};
  };

  struct OpenCapture {
    std::string_view receiver;
    std::int32_t region = -1;
    bool confirmed = false;
  };

  // ---- statements (event_lowering.cpp) ----
  void lowerBlock(TSNode block);
  void lowerStatement(TSNode node);
  void lowerExpressionStatement(TSNode node);
  ExprInfo lowerAssignment(TSNode node);
  void lowerAugmentedAssignment(TSNode node);
  void lowerIf(TSNode node);
  void lowerWhile(TSNode node);
  void lowerFor(TSNode node);
  void lowerWith(TSNode node);
  void lowerWithItem(TSNode item, TSNode target, std::vector<std::int32_t>& regions,
                     std::size_t& streams);
  void openWithRegion(TSNode item, const CallArguments& syntax, CaptureRegion::Pending pending,
                      RefId pending_ref, std::vector<std::int32_t>& regions);
  void lowerTry(TSNode node);
  void lowerMatch(TSNode node);
  void lowerConditionalBlock(TSNode block);

  // ---- names and bindings (event_lowering.cpp) ----
  void bindParameters();
  ExprInfo annotationInfo(TSNode type);
  void bindTarget(TSNode target, const ExprInfo& info, TSNode value, bool augmented = false);
  void bindLoopTarget(TSNode target, TSNode iterable, const ExprInfo& info);
  void setBinding(std::string_view name, ExprInfo info);
  void recordSelfAttribute(std::string_view name, const ExprInfo& info, TSNode value,
                           bool augmented);
  bool isSelfName(TSNode node) const;
  const ExprInfo* findLocal(std::string_view name) const;
  bool lookupName(std::string_view name, ExprInfo& out) const;
  bool isShadowed(std::string_view name) const;
  std::string importedNameOf(TSNode node) const;
  ExprInfo elementOf(const ExprInfo& info) const;
  ExprInfo loopElement(TSNode iterable, const ExprInfo& info);
  // Does the loop iterate a module's parameters or buffers (named: as (name, tensor) pairs)?
  bool iteratesParameters(TSNode iterable, bool named) const;
  ExprInfo attributeRead(const AttributeFacts& facts) const;

  // ---- expressions (event_lowering.cpp) ----
  ExprInfo eval(TSNode node);
  ExprInfo quietEval(TSNode node);
  ExprInfo dispatch(TSNode node);
  ExprInfo condition(TSNode node);
  ExprInfo evalIdentifier(TSNode node);
  ExprInfo evalAttribute(TSNode node);
  ExprInfo evalAttributeOf(TSNode node, const ExprInfo& object, std::string_view name);
  ExprInfo evalSubscript(TSNode node);
  ExprInfo evalBinary(TSNode node);
  ExprInfo evalStringFormat(TSNode node, TSNode right);
  ExprInfo evalComparison(TSNode node);
  ExprInfo evalConditional(TSNode node);
  ExprInfo evalString(TSNode node);
  ExprInfo evalSequence(TSNode node);
  ExprInfo evalComprehension(TSNode node);
  ExprInfo evalChildren(TSNode node);

  // ---- calls (call_lowering.cpp) ----
  ExprInfo evalCall(TSNode call);
  ExprInfo evalResolvedCall(Callee& callee, TSNode call, const Arguments& arguments);
  Callee resolveCallee(TSNode function);
  Callee calleeFromInfo(ExprInfo info) const;
  void evalArguments(TSNode arguments, Arguments& out);
  Arguments& argumentsSlot();
  ExprInfo callFunction(FunctionId function, TSNode call, const Arguments& arguments);
  ExprInfo construct(std::int32_t class_index, TSNode call, const Arguments& arguments);
  ExprInfo callApi(const std::string& qualified, TSNode call, const Arguments& arguments);
  ExprInfo callBuiltin(const Callee& callee, TSNode call, const Arguments& arguments);
  ExprInfo callMethod(Callee& callee, TSNode call, const Arguments& arguments);
  ExprInfo callTensorMethod(const Callee& callee, TSNode call, const Arguments& arguments);
  ExprInfo callValue(const Callee& callee, TSNode call, const Arguments& arguments);
  ExprInfo moduleCallResult(const Arguments& arguments) const;
  bool isUnboundMethodCall(TSNode call) const;
  // ---- decorators (decorated_functions.cpp) ----
  bool hasDecorator(FunctionId function, std::initializer_list<std::string_view> names) const;
  bool isKernelLaunch(TSNode callee) const;
  ExprInfo launchKernel(TSNode call, const Arguments& arguments);
  bool isMemoized() const;
  void markGuard(TSNode if_statement, std::size_t first_event);  // region_reads.cpp
  // ---- blocks that run once by design (once_blocks.cpp) ----
  // `if obj.flag: return` in `block`, which later sets `obj.flag`: the rest of the block runs
  // once, on the first call (a warm-up's), and returns at once under a later capture.
  bool returnsOnceDone(TSNode statement, TSNode block) const;
  bool runsOnce(TSNode if_statement, std::size_t first_event) const;
  // The names a lazy-initialization guard caches by: those of the key in `key not in cache`.
  void noteCacheKeys(TSNode condition, std::vector<std::string>& keys) const;
  // A capture opened under a lazy-initialization guard: made on the first call, replayed by
  // the later ones (CaptureRegion::lazy).
  void noteLazyCapture(CaptureRegion& region) const;
  // The innermost conditional around the capture at `site`, inside the loops around it
  // (CaptureRegion::guard).
  void noteCaptureGuard(CaptureRegion& region, TSNode site) const;
  // A block that runs once by design (FunctionModel::once_blocks), from byte `begin` to `end`.
  void noteOnceBlock(std::uint32_t begin, std::uint32_t end);
  // The enclosing function (not the module) whose local the root name of `target` is, or
  // kNoFunction: what a closure's side effect changes.
  FunctionId enclosingOwner(TSNode target) const;
  bool isCaptureOnly(TSNode condition, std::size_t first_event) const;
  bool writesGuarded(TSNode block, std::string_view guarded, int depth) const;
  bool isExtraSyncFunction(std::string_view qualified) const;
  bool isUnshadowedBuiltin(TSNode function, std::string_view name) const;
  // ---- branches on "is the stream capturing?" (capture_queries.cpp) ----
  // Past the analysis's nesting bound (syntax.h): true, and the file notes the first place.
  bool tooDeep(TSNode node);
  bool returnsCaptureQuery(FunctionId function) const;  // memoized in file_
  bool bodyReturnsCaptureQuery(FunctionId function) const;
  // ---- code that runs only when not capturing (eager_blocks.cpp) ----
  // 1: the condition holds whenever a capture is under way; -1: it never does; 0: not known.
  int captureSense(TSNode condition, std::size_t first_event, int depth) const;
  bool alwaysExits(TSNode block, bool raise_only, int depth) const;
  bool raisesUnderCapture(FunctionId function) const;
  bool rejectsCapture(TSNode block, FunctionId function, int depth) const;
  // `device.type != "cuda"`, `not x.is_cuda`, `not torch.cuda.is_available()`: nothing on
  // this path runs on a CUDA device, so nothing is captured.
  bool testsNotOnDevice(TSNode condition) const;
  // The statement (lowered from `first_event` on) leaves its block whenever capturing.
  bool exitsUnderCapture(TSNode statement, std::size_t first_event) const;
  void markEagerOnly(std::size_t begin, std::size_t end);
  // kFlagCaptureDependent on the calls of a block that runs only under capture.
  void markCaptureOnlyCalls(std::size_t begin, std::size_t end);
  // ---- narrowing by isinstance and device tests (type_narrowing.cpp) ----
  enum class TypeTest : std::uint8_t { kOther, kTensorType, kHostType };
  enum class Narrowing : std::uint8_t { kNotTensor, kHostTensor };
  struct NarrowedName {
    std::string_view name;  // emptied when the name is bound again
    Narrowing kind = Narrowing::kNotTensor;
  };
  TypeTest classifyTypeTest(TSNode type) const;
  void typeTestFacts(TSNode call, bool when_true, std::vector<NarrowedName>& out) const;
  void deviceTestFacts(TSNode test, bool when_true, std::vector<NarrowedName>& out) const;
  // What `condition` evaluating to `when_true` proves about names.
  void narrowedNames(TSNode condition, bool when_true, std::vector<NarrowedName>& out,
                     int depth) const;
  // What narrowBy changed: names narrowed and static tests pushed, undone by endNarrowing.
  struct NarrowMark {
    std::size_t names = 0;
    std::int32_t test = -1;
  };
  NarrowMark narrowMark() const { return {narrowed_.size(), current_test_}; }
  NarrowMark narrowBy(TSNode condition, bool when_true);
  void endNarrowing(NarrowMark mark);
  void narrowedRead(std::string_view name, ExprInfo& info) const;
  bool isConstantLogOnTypedPath(const Arguments& arguments) const;
  void forgetNarrowing(std::string_view name);
  void noteTypeTestAlias(TSNode target, TSNode value);
  // After `if isinstance(...): return` or `assert isinstance(...)`: narrowed to the block's end.
  void narrowAfter(TSNode statement);
  // ---- tests on parameters, conditions decided statically (static_conditions.cpp) ----
  // A value known without running the program: a literal's key (literal_key.h), or a sequence
  // of them.
  struct Constant {
    bool known = false;
    bool sequence = false;
    std::string key;
    std::vector<std::string> items;
    bool truthy() const;
  };
  static Constant boolConstant(bool value);
  static Constant literalNone();
  Constant constantOf(TSNode node, int depth) const;
  Constant comparisonConstant(TSNode node, int depth) const;
  Constant moduleConstant(std::string_view name, int depth) const;
  Constant callConstant(TSNode call, int depth) const;
  // The parameter `node` names, when the body never binds it again.
  std::optional<std::uint32_t> testedParameter(TSNode node) const;
  void pushStaticTest(StaticTest::Op op, std::uint32_t param, std::string literal);
  // The value the configuration gives an environment variable; null: unset.
  const std::string* environmentValue(std::string_view name) const;
  // torch.compiler.is_compiling() and its aliases.
  bool isDynamoTracingQuery(TSNode callee) const;
  // A parameter passed on as a call's argument: the walk carries the literal it holds.
  void notePassedParameter(TSNode argument);
  // The tests `condition` evaluating to `when_true` makes, pushed on the current chain.
  void addStaticTests(TSNode condition, bool when_true, int depth);
  bool isCaptureFlag(TSNode node) const;
  std::vector<std::string> deviceWork(std::size_t begin, std::size_t end) const;
  void markCaptureBranch(std::size_t condition_begin, std::size_t condition_end,
                         std::size_t side_end, std::size_t branch_end);

  // ---- regions (call_lowering.cpp) ----
  void captureBegin(const Callee& callee, TSNode call, const Arguments& arguments);
  void captureEnd(const Callee& callee);
  void graphedCallables(TSNode call, const Arguments& arguments);
  // `mode`: the mode argument's reference when it is a name the program model decides.
  void compileRegion(const ExprInfo& target, TSNode site, RefId mode = kNoRef);
  FunctionId callableTarget(const ExprInfo& info, std::string& qualified);
  std::int32_t currentRegion() const { return region_stack_.empty() ? -1 : region_stack_.back(); }
  void popRegion(std::int32_t region);

  // ---- flow between capture and replay (flow_lowering.cpp) ----
  void noteBound(std::string_view name, ExprInfo& info);
  void noteBinding(TSNode target, const ExprInfo& info, TSNode value, bool augmented);
  void noteSubscriptStore(TSNode target, const ExprInfo& base, const ExprInfo& info, TSNode value,
                          bool augmented);
  void noteAssignedRegions(TSNode left, TSNode right, std::size_t regions_before);
  void noteNameRead(std::string_view path, TSNode node, ExprInfo& info);
  void noteFlowMethod(const Callee& callee, TSNode call, const Arguments& arguments);
  void noteFunctionCall(FunctionId function, TSNode call);
  ExprInfo noteCallResult(TSNode call, ExprInfo result);
  void noteReturn(TSNode node);
  void noteDelete(TSNode node);
  void noteLoop(TSNode node);
  void noteRegionSpan(std::int32_t region, SourceRange span);
  ExprInfo lowerYield(TSNode node);
  void emitStore(std::string_view api, std::string target, TSNode value, const ExprInfo& info);
  bool isContainerPath(const std::string& path) const;
  // A callable whose code is not visible (a torch.nn module, a parameter): still a region, with
  // no function, so that its calls and outputs are known.
  bool isOpaqueCallable(const ExprInfo& info) const;
  std::string flowPath(TSNode node) const;
  // `x.shape[0]`, `x.size(1)`, `x.numel()`, `len(batch)`: a size read straight from data.
  bool isSizeRead(TSNode node) const;
  // ---- loops of known length (loop_trips.cpp) ----
  // How many elements iterating `node` gives, when the code says so: range() of constants, a
  // list or tuple display, a comprehension over one of those, enumerate/zip/reversed of them, a
  // name or self attribute bound to one; -1 when not known.
  std::int32_t tripsOf(TSNode node, int depth) const;
  // The length a binding of `path` to `value` gives it (or forgets), for later loops over it.
  void noteLength(const std::string& path, TSNode value);
  // ---- modules handed to make_graphed_callables (graphed_modules.cpp) ----
  std::int32_t literalIndex(TSNode subscript) const;
  void noteSubmoduleLoop(TSNode target, TSNode iterable);
  void noteGraphedUse(const Callee& callee, TSNode call);
  void noteOptimizerBinding(TSNode target, TSNode value);
  bool countsStepsOnHost(std::string_view qualified, TSNode call);
  std::string sourcePath(TSNode node) const;

  // ---- reads under capture of the function's own names (region_reads.cpp) ----
  void openRegionExtent(std::int32_t region, TSNode site);
  const BindingSites& bindingSites() const;  // built on first use
  // A local or parameter read inside a capture region: its reference names the local, so that
  // the program model can follow the name's bindings between the capture and a replay.
  ExprInfo localRead(TSNode node, ExprInfo info);
  void bindLocalAttribute(TSNode target, const ExprInfo& info);
  bool localAttribute(TSNode node, ExprInfo& out) const;
  void noteHostBinding(std::string_view name);

  // ---- shapes (shape_lowering.cpp) ----
  bool mayVary(const Value& value) const;
  void emitShapeUse(TSNode node, const Value& value, std::string_view api, TSNode call,
                    const ExprInfo* receiver, TSNode receiver_node);
  void emitShapeArgument(TSNode node, const ExprInfo& info, std::string_view api, TSNode call,
                         const ExprInfo* receiver, TSNode receiver_node);
  void emitShapeUses(const ShapeArguments& shape, std::string_view api, TSNode call,
                     const Arguments& arguments, const ExprInfo* receiver, TSNode receiver_node);
  ExprInfo lowerSlice(TSNode slice, const ExprInfo& base, TSNode base_node, TSNode subscript);
  void emitIndexUse(TSNode index, const ExprInfo& info, const ExprInfo& base, TSNode base_node,
                    TSNode subscript);

  // ---- streams (stream_lowering.cpp) ----
  bool isCaptureStream(const ExprInfo& info, TSNode node) const;
  bool isForked(std::string_view name) const;
  void emitStreamEvent(EventKind kind, TSNode call, std::string api, std::string stream);
  void streamContext(TSNode site, const Arguments& arguments);
  bool lowerStreamMethod(const Callee& callee, TSNode call, const Arguments& arguments);

  // ---- host side effects (side_effect_lowering.cpp) ----
  enum class Lifetime : std::uint8_t { kFresh, kOutlives, kParameter };
  Lifetime lifetimeOf(TSNode node) const;
  void emitHostEffect(TSNode range_node, std::string api, const Value& subject, TSNode subject_node,
                      std::uint32_t flags);
  void noteGlobalDeclaration(TSNode statement);
  void noteHostWrite(TSNode target, const ExprInfo& base, const ExprInfo& info, bool augmented);
  void noteContainerMethod(const Callee& callee, TSNode call, const Arguments& arguments);
  void notePrint(TSNode call, const Arguments& arguments);
  bool noteLoggingApi(std::string_view qualified, TSNode call, const Arguments& arguments);
  bool noteLoggerMethod(const Callee& callee, TSNode call, const Arguments& arguments);
  ExprInfo evalDictionary(TSNode node);

  // ---- autocast and stream blocks, stream waits, weights (context_lowering.cpp) ----
  void noteAutocastBlock(TSNode item, std::string_view canonical);
  void noteStreamBlock(TSNode item, TSNode stream);
  void closeContextBlocks(std::size_t first, std::size_t count, TSNode with);
  void noteStreamWait(const Callee& callee, TSNode call, TSNode other);
  // kFlagReadsWeights for an op autocast casts (`receiver` null: a torch function) reading a leaf.
  std::uint32_t weightFlags(std::string_view api, const ExprInfo* receiver,
                            const Arguments& arguments) const;
  void noteModuleCall(const ExprInfo& module, TSNode call);
  // threading.Thread(target=f), thread pools: true when the API was one of them.
  bool noteThreadApi(std::string_view canonical, TSNode call, const Arguments& arguments,
                     ExprInfo& result);
  // pool.submit(f, ...), pool.map(f, ...), t.join()
  void noteThreadMethod(const Callee& callee, TSNode call, const Arguments& arguments);

  // ---- host memory and copies to the device (host_copy_lowering.cpp) ----
  ExprInfo withStringFacts(TSNode node, ExprInfo info) const;
  DeviceKind deviceArgument(const ExprInfo* info, TSNode node) const;
  bool isHostData(const ExprInfo* info, TSNode node) const;
  ExprInfo torchDeviceCall(const Arguments& arguments) const;
  std::uint32_t factoryCopy(std::string_view canonical, const Arguments& arguments,
                            ExprInfo& result) const;
  // `unknown_source`: the tensor a copy to the device reads when this file cannot tell where it
  // lives (the program model may: an attribute set in __init__, a helper's result).
  std::uint32_t methodCopy(std::string_view name, const ExprInfo& receiver,
                           const Arguments& arguments, ExprInfo& result,
                           RefId& unknown_source) const;
  // The reference the model types a tensor result by: where lowering knows it lives.
  RefId memoryRef(const ExprInfo& info) const;

  // ---- references for the program model (reference_lowering.cpp) ----
  // `info` with `ref` when it has none yet.
  static ExprInfo withRef(ExprInfo info, RefId ref);
  // joinInfos, with the references of both sides joined.
  ExprInfo joinedInfo(const ExprInfo& a, const ExprInfo& b);
  // The reference of an identifier no scope binds: a builtin, or a name a star import brings.
  RefId unboundNameRef(std::string_view name);
  // What an annotation says a parameter holds (`Llama`, `Optional[Llama]`, "Llama").
  RefId annotationRef(TSNode type);
  RefId annotationRefOf(TSNode node, int depth);
  // A dotted name ("models.Llama") as this function's scopes resolve it.
  RefId dottedRef(std::string_view dotted);
  // The annotations and defaults of this function's parameters, before they are bound.
  void noteParameterReferences();
  RefId callRef(RefId callee, const Arguments& arguments);
  void noteReturnValue(const ExprInfo& info);
  // `return self.static_out` after a replay: the caller gets the graph's output buffer.
  void noteReturnedOutput(TSNode value, const ExprInfo& info);
  void noteYieldValue(const ExprInfo& info, bool delegated);
  // A def or class statement: its decorators (applied as calls, innermost first), a class's
  // bases and body members; then the name binds to it.
  void lowerDefinition(TSNode node, bool in_class_body = false);
  void bindDefinitionName(TSNode definition);  // event_lowering.cpp
  void lowerDecorators(TSNode decorated, RefId decorated_ref, std::vector<RefId>& decorators);
  void lowerClassBody(std::int32_t class_index, TSNode body, int depth);
  void noteAttributeWrite(TSNode target, RefId object, const ExprInfo& value, bool augmented);
  // `X = v` under `global X`: an attribute write on the module (FileModel::attribute_writes).
  void noteGlobalWrite(TSNode target, const ExprInfo& value, bool augmented);
  bool isGlobalDeclared(std::string_view name) const;
  // `base[key] = v`, `base[key] += v` (FileModel::element_writes).
  void noteItemWrite(TSNode target, const ExprInfo& base, const ExprInfo& value,
                     std::string_view key, RefId key_ref, bool augmented);
  // `base[key] = value`, `base.append(value)`: the container may now hold `value`.
  void noteElementWrite(TSNode base_node, const ExprInfo& base, RefId value, std::int32_t position,
                        std::string_view key);
  void noteContainerGrowth(const Callee& callee, const Arguments& arguments);
  // A literal subscript or dict key, typed: "s:text", "i:12"; "" for anything else.
  std::string literalKeyOf(TSNode node) const;
  // The container `node` names (a local, an element of one) now holds `value` under `key`:
  // its reference is updated, in place when the code runs unconditionally.
  bool updateContainer(TSNode node, std::string_view key, RefId value, int depth);
  // `for x in it` and comprehensions call it.__iter__() and __next__(): the program's own, when
  // `it` is an object of a class of the program.
  void noteIteration(TSNode site, RefId iterable);
  // `raise Error` instantiates the class.
  void noteRaisedClass(TSNode raised, const ExprInfo& info);
  // A call lowering cannot resolve from this file: the program model may (its reference says
  // what is called with what).
  void emitDynamicCall(TSNode call, const Arguments& arguments);
  // Could the call `ref` enter a context manager of the program (not a library's)?
  bool mayBeCaptureContext(RefId ref) const;

  // ---- events ----
  Event& emit(EventKind kind, TSNode range_node);
  Value described(const Value& value, TSNode node) const;
  void fillArguments(Event& event, const Arguments& arguments);
  void emitBranch(TSNode node, const Value& subject);
  // Gradients released (`opt.zero_grad()`, `p.grad = None`): GS207's resets.
  void emitGradReset(TSNode node, std::string target, std::string text);
  // A library call whose host-side state changes when it runs (GS107).
  void emitStateChange(TSNode call, std::string api, std::string text);
  bool isExtraStateFunction(std::string_view qualified) const;
  // The event emitted (a scratch one when lowering is quiet).
  Event& emitSync(TSNode range_node, std::string api, std::string text, const Value& subject,
                  TSNode subject_node, std::uint32_t flags);
  std::string methodText(const Callee& callee, TSNode call) const;
  bool quiet() const { return mode_ != Mode::kNormal || quiet_depth_ > 0; }

  const FunctionDecl& decl() const { return file_.index.functions[id_]; }
  std::string_view textOf(TSNode node) const { return file_.text.of(node); }

  FileLowering& file_;
  const Grammar& g_;
  FunctionId id_;
  Mode mode_;
  Bindings bindings_;
  std::vector<Event> events_;
  Event scratch_;
  std::vector<std::int32_t> region_stack_;
  std::vector<OpenCapture> open_captures_;
  std::vector<std::string_view> stream_stack_;
  std::vector<std::unique_ptr<Arguments>> argument_slots_;
  std::size_t argument_depth_ = 0;
  int conditional_depth_ = 0;
  int depth_ = 0;
  int quiet_depth_ = 0;
  std::int32_t self_class_ = -1;
  std::string_view self_name_;
  FunctionFlow flow_;
  FunctionHostFacts host_;
  // Names narrowed here (isinstance and device tests), and locals bound to such a test.
  std::vector<NarrowedName> narrowed_;
  // Paths known to be None in the code being lowered (`if self.graph is None:` and the `else` of
  // `if self.graph is not None:`): where a graph handle is None, no graph was captured yet.
  std::vector<std::string> none_paths_;
  // The path `condition` tests against None, and whether it tests `is None` (not `is not None`).
  std::string noneTestedPath(TSNode condition, bool& is_none) const;
  std::unordered_map<std::string_view, TSNode> type_test_aliases_;
  // Static tests (FunctionModel::tests) and the innermost one the code being lowered runs under.
  std::vector<StaticTest> tests_;
  std::uint64_t literal_params_ = 0;
  std::int32_t current_test_ = -1;
  // Loop variables over a module's modules()/children(): name -> the module's path.
  std::unordered_map<std::string_view, std::string> submodule_loops_;
  // Names bound to a torch.optim optimizer: their step() is work a capture must warm up.
  std::vector<std::string> optimizers_;
  // Optimizers whose step count lives on the host (built without capturable=True or fused=True):
  // path, optimizer class.
  std::vector<std::pair<std::string, std::string>> host_step_optimizers_;
  // The call being lowered, as a reference (for the kCall event it emits), and what the
  // function returns and yields.
  RefId call_ref_ = kNoRef;
  RefId returns_ = kNoRef;
  RefId yields_ = kNoRef;
};

}  // namespace graphsafe::python
