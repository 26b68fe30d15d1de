/* test_measure.c: the worker's status rules (tuner/measure/measure.h) on the CPU: which CUDA errors lose
 * the context, which launch failures mean "the device cannot run this variant" (unsupported)
 * rather than a refused launch (launch_error). The GPU side of measure.c runs in
 * tests/gpu/worker_test.sh. */
#include "check.h"
#include "measure/measure.h"

int main(void)
{
    /* Sticky errors: the context is gone and the worker must exit. */
    cudaError_t sticky[] = { cudaErrorIllegalAddress, cudaErrorLaunchFailure,
                             cudaErrorMisalignedAddress, cudaErrorIllegalInstruction,
                             cudaErrorHardwareStackError, cudaErrorInvalidAddressSpace,
                             cudaErrorInvalidPc, cudaErrorAssert, cudaErrorLaunchTimeout };
    for (size_t i = 0; i < sizeof sticky / sizeof *sticky; i++)
        CHECK(measure_error_is_sticky(sticky[i]) == 1);
    cudaError_t not_sticky[] = { cudaSuccess, cudaErrorInvalidConfiguration,
                                 cudaErrorLaunchOutOfResources, cudaErrorInvalidValue,
                                 cudaErrorMemoryAllocation, cudaErrorNoKernelImageForDevice };
    for (size_t i = 0; i < sizeof not_sticky / sizeof *not_sticky; i++)
        CHECK(measure_error_is_sticky(not_sticky[i]) == 0);

    CHECK(measure_error_is_resource(cudaErrorInvalidConfiguration));
    CHECK(measure_error_is_resource(cudaErrorLaunchOutOfResources));
    CHECK(measure_error_is_resource(cudaErrorCooperativeLaunchTooLarge));
    CHECK(!measure_error_is_resource(cudaErrorInvalidValue));
    CHECK(!measure_error_is_resource(cudaSuccess));

    /* The library said it has no such variant. */
    CHECK(measure_launch_status(TK_ERR_UNSUPPORTED_CONFIG, cudaSuccess, "") == EVAL_UNSUPPORTED);
    /* A launch refused for resources, known from the pending error or from the text. */
    CHECK(measure_launch_status(TK_ERR_LAUNCH, cudaErrorLaunchOutOfResources, NULL) ==
          EVAL_UNSUPPORTED);
    CHECK(measure_launch_status(TK_ERR_LAUNCH, cudaSuccess,
                                "launch: cudaErrorInvalidConfiguration: invalid configuration "
                                "argument") == EVAL_UNSUPPORTED);
    CHECK(measure_launch_status(TK_ERR_LAUNCH, cudaSuccess,
                                "too many resources requested for launch") == EVAL_UNSUPPORTED);
    /* Any other refused launch. */
    CHECK(measure_launch_status(TK_ERR_LAUNCH, cudaSuccess, "launch failed") ==
          EVAL_LAUNCH_ERROR);
    CHECK(measure_launch_status(TK_ERR_LAUNCH, cudaErrorNoKernelImageForDevice, "") ==
          EVAL_LAUNCH_ERROR);
    CHECK(measure_launch_status(TK_ERR_INVALID_ARGUMENT, cudaSuccess, "bad pointer") ==
          EVAL_LAUNCH_ERROR);
    CHECK(measure_launch_status(TK_ERR_CUDA, cudaSuccess, NULL) == EVAL_LAUNCH_ERROR);
    return CHECK_DONE();
}
