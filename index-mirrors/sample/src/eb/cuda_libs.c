/* Stand-ins for the NVIDIA libraries that EasyBuild's CUDA, cuDNN, NCCL and
 * cuSPARSELt modules install. Each build defines one SAMPLE_LIB_* and
 * SAMPLE_API_VERSION, the number the real library reports (cudaRuntimeGetVersion
 * gives 12060 for CUDA 12.6), so a test can tell which module's copy the
 * loader picked. Function names and signatures are the real exported ones. */
#include <stddef.h>

#if defined(SAMPLE_LIB_CUDART)
int cudaGetDeviceCount(int* count) {
  *count = 1;
  return 0;
}
int cudaRuntimeGetVersion(int* version) {
  *version = SAMPLE_API_VERSION;
  return 0;
}
#elif defined(SAMPLE_LIB_CUBLASLT)
size_t cublasLtGetVersion(void) { return SAMPLE_API_VERSION; }
#elif defined(SAMPLE_LIB_CUBLAS)
/* The real libcublas needs libcublasLt too. */
size_t cublasLtGetVersion(void);
int cublasGetVersion_v2(void* handle, int* version) {
  (void)handle;
  *version = SAMPLE_API_VERSION;
  return cublasLtGetVersion() == SAMPLE_API_VERSION ? 0 : 1;
}
#elif defined(SAMPLE_LIB_CUFFT)
int cufftGetVersion(int* version) {
  *version = SAMPLE_API_VERSION;
  return 0;
}
#elif defined(SAMPLE_LIB_CURAND)
int curandGetVersion(int* version) {
  *version = SAMPLE_API_VERSION;
  return 0;
}
#elif defined(SAMPLE_LIB_NVJITLINK)
int nvJitLinkVersion(unsigned* major, unsigned* minor) {
  *major = SAMPLE_API_VERSION / 1000;
  *minor = SAMPLE_API_VERSION % 1000 / 10;
  return 0;
}
#elif defined(SAMPLE_LIB_CUSPARSE)
/* Since CUDA 12.0 libcusparse links libnvJitLink, which it finds through
 * the loader's search path (no RUNPATH in the toolkit's libraries). */
int nvJitLinkVersion(unsigned* major, unsigned* minor);
int cusparseGetVersion(void* handle, int* version) {
  unsigned major = 0;
  unsigned minor = 0;
  (void)handle;
  *version = SAMPLE_API_VERSION;
  return nvJitLinkVersion(&major, &minor);
}
#if defined(SAMPLE_CUDA13)
/* libraryPropertyType: 0 major, 1 minor, 2 patch (12603 -> 12.6.3). The
 * real CUDA 13 library answers this without a handle. */
int cusparseGetProperty(int type, int* value) {
  *value = type == 0 ? SAMPLE_API_VERSION / 1000
                     : (type == 1 ? SAMPLE_API_VERSION % 1000 / 100 : SAMPLE_API_VERSION % 100);
  return 0;
}
#endif
#elif defined(SAMPLE_LIB_CUSOLVER)
int cublasGetVersion_v2(void* handle, int* version);
int cusparseGetVersion(void* handle, int* version);
int cusolverGetVersion(int* version) {
  int other = 0;
  *version = SAMPLE_API_VERSION;
  return cublasGetVersion_v2(0, &other) + cusparseGetVersion(0, &other);
}
#elif defined(SAMPLE_LIB_NVRTC)
int nvrtcVersion(int* major, int* minor) {
  *major = SAMPLE_API_VERSION / 1000;
  *minor = SAMPLE_API_VERSION % 1000 / 10;
  return 0;
}
#elif defined(SAMPLE_LIB_NVTX)
int nvtxRangePushA(const char* message) {
  (void)message;
  return SAMPLE_API_VERSION;
}
#elif defined(SAMPLE_LIB_CUPTI)
int cuptiGetVersion(unsigned* version) {
  *version = SAMPLE_API_VERSION;
  return 0;
}
#elif defined(SAMPLE_LIB_CUDNN)
size_t cudnnGetVersion(void) { return SAMPLE_API_VERSION; }
#elif defined(SAMPLE_LIB_NCCL)
int ncclGetVersion(int* version) {
  *version = SAMPLE_API_VERSION;
  return 0;
}
#elif defined(SAMPLE_LIB_CUSPARSELT)
int cusparseLtGetVersion(const void* handle, int* version) {
  (void)handle;
  *version = SAMPLE_API_VERSION;
  return 0;
}
#elif defined(SAMPLE_LIB_CUFILE)
/* libcufile.so.0 (GPUDirect Storage). 1150 for cuFile 1.15. */
int cuFileGetVersion(int* version) {
  *version = SAMPLE_API_VERSION;
  return 0;
}
#elif defined(SAMPLE_LIB_NVSHMEM)
/* libnvshmem_host.so.3. 3040 -> NVSHMEM 3.4. */
void nvshmem_info_get_version(int* major, int* minor) {
  *major = SAMPLE_API_VERSION / 1000;
  *minor = SAMPLE_API_VERSION % 1000 / 10;
}
#else
#error "define one SAMPLE_LIB_*"
#endif
