/* torch/lib/libtorch_hip.so: calls into the ROCm libraries bundled beside it. */
#include <stddef.h>

int c10_hip_device_count(void);
int torch_cpu_add(int a, int b);
int hipRuntimeGetVersion(int* version);
int rocblas_get_version_string_size(size_t* len);
int miopenGetVersion(size_t* major, size_t* minor, size_t* patch);
int ncclGetVersion(int* version);
#if defined(SAMPLE_ROCM_STACK)
/* torch 2.9.1: the whole bundled ROCm stack (src/rocm/rocm_stack.c), one
 * sample_check_<ident> per library it links. */
#define SAMPLE_CAT_(a, b) a##b
#define SAMPLE_CAT(a, b) SAMPLE_CAT_(a, b)
#define SAMPLE_DECLARE(dep) int SAMPLE_CAT(sample_check_, dep)(void);
#define SAMPLE_CALL(dep) total += SAMPLE_CAT(sample_check_, dep)();
SAMPLE_DEPS(SAMPLE_DECLARE)

static long torch_hip_stack_check(void) {
  long total = 0;
  SAMPLE_DEPS(SAMPLE_CALL)
  return total;
}
#endif

int torch_hip_device_count(void) { return torch_cpu_add(c10_hip_device_count(), 0); }

int torch_hip_runtime_version(void) {
  int version = 0;
  return hipRuntimeGetVersion(&version) == 0 ? version : -1;
}

int torch_hip_rccl_version(void) {
  int version = 0;
  return ncclGetVersion(&version) == 0 ? version : -1;
}

long torch_hip_library_check(void) {
  size_t len = 0;
  size_t major = 0;
  size_t minor = 0;
  size_t patch = 0;
  if (rocblas_get_version_string_size(&len) != 0) return -1;
  if (miopenGetVersion(&major, &minor, &patch) != 0) return -1;
#if defined(SAMPLE_ROCM_STACK)
  if (torch_hip_stack_check() <= 0) return -1;
#endif
  return (long)(len + major + minor + patch) + torch_hip_rccl_version();
}
