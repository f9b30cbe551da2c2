/* Stand-ins for the ROCm libraries a torch ROCm wheel bundles in torch/lib
 * (renamed without their SONAME version, e.g. libamdhip64.so). Each build
 * defines one SAMPLE_LIB_*; names and signatures are the real exported ones. */
#include <stddef.h>

#if defined(SAMPLE_LIB_HSA)
int hsa_init(void) { return 0; }
#elif defined(SAMPLE_LIB_AMDHIP)
int hsa_init(void);
int hipGetDeviceCount(int* count) {
  *count = 1;
  return hsa_init();
}
int hipRuntimeGetVersion(int* version) {
  *version = SAMPLE_API_VERSION;
  return 0;
}
#elif defined(SAMPLE_LIB_ROCBLAS)
int hipGetDeviceCount(int* count);
int rocblas_get_version_string_size(size_t* len) {
  int count = 0;
  *len = 16;
  return hipGetDeviceCount(&count);
}
#elif defined(SAMPLE_LIB_MIOPEN)
int miopenGetVersion(size_t* major, size_t* minor, size_t* patch) {
  *major = 3;
  *minor = 2;
  *patch = 0;
  return 0;
}
#elif defined(SAMPLE_LIB_RCCL)
/* RCCL exports the NCCL API. */
int ncclGetVersion(int* version) {
  *version = SAMPLE_API_VERSION;
  return 0;
}
#else
#error "define one SAMPLE_LIB_*"
#endif
