// The Python frontend's host-side context: autocast and stream blocks, waits between streams,
// functions handed to threads and joins, weights read by ops autocast casts, pinned buffers.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine/analysis_settings.h"
#include "analyzer/engine/frontend.h"
#include "analyzer/model/capture_model.h"

namespace graphsafe {
namespace {

FileModel analyze(std::string text) {
  auto source = std::make_shared<SourceFile>("context.py", std::move(text));
  return makePythonFrontend()->analyze(source, AnalysisSettings{});
}

const FunctionModel& moduleLevel(const FileModel& model) {
  for (const FunctionModel& function : model.functions) {
    if (function.is_module_level) return function;
  }
  ADD_FAILURE() << "no module-level function";
  static const FunctionModel none;
  return none;
}

std::vector<const ContextBlock*> blocks(const FunctionModel& function, ContextBlock::Kind kind) {
  std::vector<const ContextBlock*> found;
  for (const ContextBlock& block : function.contexts) {
    if (block.kind == kind) found.push_back(&block);
  }
  return found;
}

TEST(ContextLowering, AutocastBlocksKnowWhetherTheyCache) {
  FileModel model = analyze(
      "import torch\n"
      "with torch.autocast('cuda'):\n"
      "    pass\n"
      "with torch.autocast('cuda', cache_enabled=False):\n"
      "    pass\n"
      "with torch.cuda.amp.autocast():\n"
      "    pass\n"
      "with torch.autocast('cpu'):\n"
      "    pass\n"
      "with torch.autocast(device, cache_enabled=True):\n"
      "    pass\n"
      "with torch.amp.autocast('cuda', enabled=False):\n"
      "    pass\n");
  auto found = blocks(moduleLevel(model), ContextBlock::Kind::kAutocast);
  ASSERT_EQ(found.size(), 6u);
  std::vector<bool> caches;
  for (const ContextBlock* block : found) caches.push_back(block->caches);
  EXPECT_EQ(caches, (std::vector<bool>{true, false, true, false, false, false}));
  // The block spans the whole with statement.
  EXPECT_EQ(found[0]->span.start.line, 1u);
  EXPECT_EQ(found[0]->span.stop.line, 2u);
}

TEST(ContextLowering, StreamBlocksAndWaits) {
  FileModel model = analyze(
      "import torch\n"
      "s1 = torch.cuda.Stream()\n"
      "s2 = torch.cuda.Stream()\n"
      "with torch.cuda.stream(s1):\n"
      "    pass\n"
      "s2.wait_stream(s1)\n"
      "e = torch.cuda.Event()\n"
      "s2.wait_event(e)\n");
  const FunctionModel& top = moduleLevel(model);
  auto streams = blocks(top, ContextBlock::Kind::kStream);
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(streams[0]->subject, "s1");
  auto waits = blocks(top, ContextBlock::Kind::kStreamWait);
  ASSERT_EQ(waits.size(), 2u);
  EXPECT_EQ(waits[0]->subject, "s2");
  EXPECT_EQ(waits[0]->other, "s1");
  EXPECT_EQ(waits[1]->other, "e");
}

TEST(ContextLowering, ThreadTargetsAndJoins) {
  FileModel model = analyze(
      "import threading\n"
      "from concurrent.futures import ThreadPoolExecutor\n"
      "def work(x):\n"
      "    return x\n"
      "t = threading.Thread(target=work, args=(1,))\n"
      "t.start()\n"
      "t.join()\n"
      "', '.join(['a'])\n"
      "with ThreadPoolExecutor() as pool:\n"
      "    pool.submit(work, 2)\n"
      "    list(pool.map(work, [3]))\n"
      "other.submit(work, 4)\n");
  const FunctionModel& top = moduleLevel(model);
  auto threads = blocks(top, ContextBlock::Kind::kThread);
  ASSERT_EQ(threads.size(), 3u);
  for (const ContextBlock* block : threads) {
    ASSERT_LT(block->function, model.functions.size());
    EXPECT_EQ(model.functions[block->function].name, "work");
  }
  EXPECT_EQ(blocks(top, ContextBlock::Kind::kThreadJoin).size(), 1u);
}

TEST(ContextLowering, WeightReadsAndPinnedBuffers) {
  FileModel model = analyze(
      "import torch\n"
      "from torch import nn\n"
      "x = torch.ones(2, 2, device='cuda')\n"
      "w = torch.ones(2, 2, device='cuda', requires_grad=True)\n"
      "p = nn.Parameter(torch.ones(2, 2))\n"
      "layer = nn.Linear(2, 2)\n"
      "act = nn.ReLU()\n"
      "a = x @ w\n"
      "b = torch.matmul(x, p)\n"
      "c = layer(x)\n"
      "d = act(x)\n"
      "e = x @ x\n"
      "f = w * 2\n"
      "h = torch.zeros(4, pin_memory=True)\n"
      "k = torch.zeros(4).pin_memory()\n"
      "m = torch.zeros(4, device='cuda', pin_memory=True)\n");
  const FunctionModel& top = moduleLevel(model);
  std::vector<std::string> weights;
  std::vector<std::string> pinned;
  for (const Event& event : top.events) {
    if ((event.flags & kFlagReadsWeights) != 0) weights.push_back(event.text);
    if (event.kind == EventKind::kBind && (event.flags & kFlagPinnedHost) != 0) {
      pinned.push_back(event.target);
    }
  }
  EXPECT_EQ(weights, (std::vector<std::string>{"x @ w", "torch.matmul(x, p)", "layer(x)"}));
  EXPECT_EQ(pinned, (std::vector<std::string>{"h", "k"}));
}

}  // namespace
}  // namespace graphsafe
