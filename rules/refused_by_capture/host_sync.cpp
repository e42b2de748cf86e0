// GS401 host-sync: an operation that makes the host wait for the device, under capture.
// The frontends decide which calls synchronize (data tables per language); this check decides
// whether the value involved is known well enough to say so.
#include "analyzer/engine/check.h"
#include "rules/refused_by_capture/device_read.h"

namespace graphsafe {

namespace {

class HostSyncCheck final : public Check {
 public:
  std::string_view id() const override { return "GS401"; }

  void checkRegionEvent(const RegionContext& context, const Event& event,
                        DiagnosticSink& sink) const override {
    if (!readsDeviceValue(context, event)) return;
    sink.report(context, event.range, message(context, event));
  }

 private:
  static std::string message(const RegionContext& context, const Event& event) {
    const std::string what = "`" + event.text + "`";
    if (context.traced()) {
      return what +
             " synchronizes with the device inside a torch.compile region: Dynamo breaks "
             "the graph here, so the CUDA graph is split and the host waits on every call";
    }
    if (context.file->language == Language::kCuda) {
      return what +
             " is not permitted while a stream is being captured: it invalidates the "
             "capture (cudaErrorStreamCaptureUnsupported) instead of being recorded";
    }
    if ((event.flags & kFlagDataDependent) != 0) {
      return what +
             " has a data-dependent output size: the host must read a device result to "
             "allocate it, which is not permitted during CUDA graph capture";
    }
    if ((event.flags & kFlagImplicit) != 0) {
      return what +
             " reads a tensor's value on the host, an implicit device synchronization "
             "that is not permitted during CUDA graph capture";
    }
    return what +
           " synchronizes the host with the device, which is not permitted during CUDA "
           "graph capture: capture fails instead of recording it";
  }
};

}  // namespace

std::unique_ptr<Check> makeHostSyncCheck() {
  return std::make_unique<HostSyncCheck>();
}

}  // namespace graphsafe
