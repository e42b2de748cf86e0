// The list of every check in this build, in catalog order. One line per check: an explicit list
// reads better than static self-registration and cannot be dropped by the linker.
#include "analyzer/engine/check.h"

namespace graphsafe {

std::unique_ptr<Check> makeTensorBranchCheck();
std::unique_ptr<Check> makeFrozenBranchCheck();
std::unique_ptr<Check> makeFrozenScalarCheck();
std::unique_ptr<Check> makeCaptureAwareLogicCheck();
std::unique_ptr<Check> makeFrozenShapeCheck();
std::unique_ptr<Check> makeHostSideEffectCheck();
std::unique_ptr<Check> makeStateChangedOnceCheck();
std::unique_ptr<Check> makeSkippedAtCaptureCheck();
std::unique_ptr<Check> makeCaptureSpecializedArgumentCheck();
std::unique_ptr<Check> makeReboundStaticInputCheck();
std::unique_ptr<Check> makeFreedStaticInputCheck();
std::unique_ptr<Check> makeOutputKeptWithoutCloneCheck();
std::unique_ptr<Check> makeAutocastCacheCheck();
std::unique_ptr<Check> makeSharedPoolOrderCheck();
std::unique_ptr<Check> makeGraphedCallablesOrderCheck();
std::unique_ptr<Check> makeGradientsResetBetweenReplaysCheck();
std::unique_ptr<Check> makeGraphSharedAcrossInstancesCheck();
std::unique_ptr<Check> makeNonCaptureStreamCheck();
std::unique_ptr<Check> makeUnjoinedStreamCheck();
std::unique_ptr<Check> makeHooksAfterGraphingCheck();
std::unique_ptr<Check> makeExtensionDefaultStreamCheck();
std::unique_ptr<Check> makeHostSyncCheck();
std::unique_ptr<Check> makePageableCopyCheck();
std::unique_ptr<Check> makeNoWarmupCheck();
std::unique_ptr<Check> makeLazyCaptureInThreadCheck();
std::unique_ptr<Check> makeHostBufferRaceCheck();
std::unique_ptr<Check> makeConcurrentPoolReplayCheck();
std::unique_ptr<Check> makeFragmentedGraphCheck();
std::unique_ptr<Check> makeInputCopiesOutweighGraphCheck();
std::unique_ptr<Check> makeDeferredGradientHooksCheck();
std::unique_ptr<Check> makeTooManyStreamsCheck();
std::unique_ptr<Check> makeGraphPerValueCheck();

std::vector<std::unique_ptr<Check>> makeAllChecks() {
  std::vector<std::unique_ptr<Check>> checks;
  checks.push_back(makeTensorBranchCheck());
  checks.push_back(makeFrozenBranchCheck());
  checks.push_back(makeFrozenScalarCheck());
  checks.push_back(makeCaptureAwareLogicCheck());
  checks.push_back(makeFrozenShapeCheck());
  checks.push_back(makeHostSideEffectCheck());
  checks.push_back(makeStateChangedOnceCheck());
  checks.push_back(makeSkippedAtCaptureCheck());
  checks.push_back(makeCaptureSpecializedArgumentCheck());
  checks.push_back(makeReboundStaticInputCheck());
  checks.push_back(makeFreedStaticInputCheck());
  checks.push_back(makeOutputKeptWithoutCloneCheck());
  checks.push_back(makeAutocastCacheCheck());
  checks.push_back(makeSharedPoolOrderCheck());
  checks.push_back(makeGraphedCallablesOrderCheck());
  checks.push_back(makeGradientsResetBetweenReplaysCheck());
  checks.push_back(makeGraphSharedAcrossInstancesCheck());
  checks.push_back(makeNonCaptureStreamCheck());
  checks.push_back(makeUnjoinedStreamCheck());
  checks.push_back(makeHooksAfterGraphingCheck());
  checks.push_back(makeExtensionDefaultStreamCheck());
  checks.push_back(makeHostSyncCheck());
  checks.push_back(makePageableCopyCheck());
  checks.push_back(makeNoWarmupCheck());
  checks.push_back(makeLazyCaptureInThreadCheck());
  checks.push_back(makeHostBufferRaceCheck());
  checks.push_back(makeConcurrentPoolReplayCheck());
  checks.push_back(makeFragmentedGraphCheck());
  checks.push_back(makeInputCopiesOutweighGraphCheck());
  checks.push_back(makeDeferredGradientHooksCheck());
  checks.push_back(makeTooManyStreamsCheck());
  checks.push_back(makeGraphPerValueCheck());
  return checks;
}

}  // namespace graphsafe
