// GS304 extension-default-stream: in C++ reachable from PyTorch, work that does not go to the
// current stream. No capture needs to be visible: the Python caller decides whether it captures,
// so every such launch is reported, once, at its own line (templates: at the template).
#include "analyzer/engine/check.h"

namespace graphsafe {

namespace {

class ExtensionDefaultStreamCheck final : public Check {
 public:
  std::string_view id() const override { return "GS304"; }

  void checkFile(const FileModel& file, const ProgramModel& /*program*/,
                 DiagnosticSink& sink) const override {
    if (file.language != Language::kCuda) return;
    for (const FunctionModel& function : file.functions) {
      for (const Event& event : function.events) {
        if (event.kind != EventKind::kStreamUse || (event.flags & kFlagExtensionCode) == 0) {
          continue;
        }
        const std::string what =
            event.api.empty() ? std::string("this work") : "`" + event.api + "`";
        const std::string reachable =
            file.extension_includer.empty()
                ? std::string("this code is reachable from PyTorch")
                : "this header is reachable from PyTorch (" + file.extension_includer +
                      ", a PyTorch extension, includes it)";
        sink.reportAt(file.source, event.range,
                      what + " goes to " + event.text +
                          ", not to at::cuda::getCurrentCUDAStream(): " + reachable +
                          ", and when a caller captures a CUDA graph the work escapes it (it runs "
                          "once and is missing from every replay)");
      }
    }
  }
};

}  // namespace

std::unique_ptr<Check> makeExtensionDefaultStreamCheck() {
  return std::make_unique<ExtensionDefaultStreamCheck>();
}

}  // namespace graphsafe
