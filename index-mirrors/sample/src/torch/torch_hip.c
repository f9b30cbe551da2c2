/* torch/lib/libtorch_hip.so: calls into the ROCm libraries bundled beside it. */
#include <stddef.h>

int c10_hip_device_count(void);
int torch_cpu_add(int a, int b);
int hipRuntimeGetVersion(int* version);
int rocblas_get_version_string_size(size_t* len);
int miopenGetVersion(size_t* major, size_t* minor, size_t* patch);
int ncclGetVersion(int* version);

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
  return (long)(len + major + minor + patch) + torch_hip_rccl_version();
}
