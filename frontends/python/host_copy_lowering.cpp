// Host memory and copies to the device, for GS402. Capture refuses a copy from pageable (not
// pinned) host memory, so the lowering tracks:
//   - tensors known to live in pageable host memory: a factory given no device (or "cpu") and no
//     pin_memory=True, torch.from_numpy(...), x.cpu(), and tensor methods applied to those;
//   - what a device expression names: "cuda:0", torch.device("cpu"), 0, x.device;
// and flags as kFlagPageableSource the copies that read such memory: .to("cuda") / .cuda() of a
// pageable tensor, copy_ from one into a device tensor, and torch.tensor / torch.as_tensor /
// torch.asarray of host data (a list, a number, a host value) with a CUDA device. A file that
// may change the default device (torch.set_default_device, `with torch.device(...)`) gets no
// factory-based facts: a bare torch.zeros(n) there may well be on the GPU.
#include "frontends/python/function_lowering.h"

namespace graphsafe::python {

namespace {

DeviceKind deviceOfText(std::string_view text) {
  if (text == "cuda" || text.starts_with("cuda:")) return DeviceKind::kCuda;
  if (text == "cpu" || text.starts_with("cpu:")) return DeviceKind::kCpu;
  return DeviceKind::kUnknown;
}

bool isTensorFromData(std::string_view name) {
  return name == "torch.tensor" || name == "torch.as_tensor" || name == "torch.asarray";
}

bool isLikeFactory(std::string_view name) {
  return name.ends_with("_like");
}

}  // namespace

ExprInfo FunctionLowering::withStringFacts(TSNode node, ExprInfo info) const {
  std::string_view value;
  if (plainStringValue(file_.pool, file_.text, node, value)) info.device = deviceOfText(value);
  return info;
}

DeviceKind FunctionLowering::deviceArgument(const ExprInfo* info, TSNode node) const {
  if (info == nullptr || isNull(node)) return DeviceKind::kUnknown;
  if (info->device != DeviceKind::kUnknown) return info->device;
  TSNode bare = unparenthesize(file_.pool, node);
  if (is(bare, g_.integer)) return DeviceKind::kCuda;  // device=0
  if (isCpuDevice(file_.pool, file_.text, bare)) return DeviceKind::kCpu;
  return DeviceKind::kUnknown;
}

bool FunctionLowering::isHostData(const ExprInfo* info, TSNode node) const {
  if (info == nullptr || isNull(node)) return false;
  TSNode bare = unparenthesize(file_.pool, node);
  TSSymbol symbol = ts_node_symbol(bare);
  if (symbol == g_.list || symbol == g_.tuple || symbol == g_.list_comprehension ||
      symbol == g_.integer || symbol == g_.float_literal || symbol == g_.true_literal ||
      symbol == g_.false_literal) {
    return true;
  }
  return info->pageable || info->value.isKnownHost();
}

ExprInfo FunctionLowering::torchDeviceCall(const Arguments& arguments) const {
  ExprInfo result;
  result.value = hostConstant(ValueOrigin::kNone);
  const ExprInfo* type = arguments.find("type", 0);
  if (type != nullptr) result.device = type->device;
  return result;
}

std::uint32_t FunctionLowering::factoryCopy(std::string_view canonical, const Arguments& arguments,
                                            ExprInfo& result) const {
  const ExprInfo* device_info = arguments.find("device");
  TSNode device_node = arguments.syntax.find("device");
  DeviceKind device = deviceArgument(device_info, device_node);
  bool pinned = false;
  if (TSNode pin = arguments.syntax.find("pin_memory"); !isNull(pin)) {
    pinned = !is(unparenthesize(file_.pool, pin), g_.false_literal);
  }
  bool default_host = isNull(device_node) && !file_.default_device_may_change;
  if (isTensorFromData(canonical)) {
    const ExprInfo* data = arguments.find("data", 0);
    TSNode data_node = arguments.syntax.find("data", 0);
    if (data == nullptr) {
      data = arguments.find("obj", 0);
      data_node = arguments.syntax.find("obj", 0);
    }
    bool host = isHostData(data, data_node);
    result.pageable = host && !pinned && (device == DeviceKind::kCpu || default_host);
    return host && device == DeviceKind::kCuda ? kFlagPageableSource : kFlagNone;
  }
  if (isLikeFactory(canonical)) {
    const ExprInfo* input = arguments.find("input", 0);
    result.pageable = input != nullptr && input->pageable && isNull(device_node);
    return kFlagNone;
  }
  result.pageable = !pinned && (device == DeviceKind::kCpu || default_host);
  result.pinned = pinned && (device == DeviceKind::kCpu || isNull(device_node));
  return result.pageable || result.pinned ? kFlagHostFactory : kFlagNone;
}

RefId FunctionLowering::memoryRef(const ExprInfo& info) const {
  if (!info.value.isTensor()) return kNoRef;
  if (info.pageable) return file_.refs.tensor(TensorMemory::kPageableHost);
  if (info.pinned) return file_.refs.tensor(TensorMemory::kPinnedHost);
  return kNoRef;
}

std::uint32_t FunctionLowering::methodCopy(std::string_view name, const ExprInfo& receiver,
                                           const Arguments& arguments, ExprInfo& result,
                                           RefId& unknown_source) const {
  const bool known_memory = receiver.pageable || receiver.pinned || receiver.host_memory;
  auto to_device = [&]() -> std::uint32_t {
    if (receiver.pageable) return kFlagPageableSource;
    if (!known_memory) unknown_source = receiver.ref;
    return kFlagNone;
  };
  if (name == "cuda") return to_device();
  if (name == "to") {
    DeviceKind device =
        deviceArgument(arguments.find("device", 0), arguments.syntax.find("device", 0));
    if (device == DeviceKind::kUnknown) {
      // x.to(other): the other tensor's device.
      const ExprInfo* other = arguments.find("other", 0);
      if (other != nullptr && other->value.isTensor() && !other->pageable) {
        device = DeviceKind::kCuda;
      }
    }
    if (device == DeviceKind::kCuda) return to_device();
    result.pageable = receiver.pageable && device == DeviceKind::kUnknown;  // a dtype change
    return kFlagNone;
  }
  if (name == "copy_") {
    const ExprInfo* source = arguments.find("src", 0);
    if (source != nullptr && source->pageable && !receiver.pageable && receiver.value.isTensor()) {
      return kFlagPageableSource;
    }
    return kFlagNone;
  }
  if (name == "pin_memory") {
    result.pinned = true;
    return kFlagNone;
  }
  result.pageable = receiver.pageable;  // x_cpu.float(), x_cpu.view(...): still on the host
  return kFlagNone;
}

}  // namespace graphsafe::python
