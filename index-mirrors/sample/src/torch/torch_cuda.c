/* torch/lib/libtorch_cuda.so: one call into every CUDA library it links, so
 * symbol and linkage checks have real references to resolve. */
#include <stddef.h>

int c10_cuda_device_count(void);
int torch_cpu_add(int a, int b);
int cudaRuntimeGetVersion(int* version);
int cublasGetVersion_v2(void* handle, int* version);
size_t cublasLtGetVersion(void);
size_t cudnnGetVersion(void);
int ncclGetVersion(int* version);
int cufftGetVersion(int* version);
int curandGetVersion(int* version);
int cusparseGetVersion(void* handle, int* version);
int cusolverGetVersion(int* version);
int nvrtcVersion(int* major, int* minor);
int nvtxRangePushA(const char* message);
int cuptiGetVersion(unsigned* version);
#ifdef SAMPLE_WITH_CUSPARSELT
int cusparseLtGetVersion(const void* handle, int* version);
#endif
#ifdef SAMPLE_CUSPARSE_PROPERTY
int cusparseGetProperty(int type, int* value);
#endif
#ifdef SAMPLE_WITH_CUFILE
int cuFileGetVersion(int* version);
#endif
#ifdef SAMPLE_WITH_NVSHMEM
int torch_nvshmem_version(void);
#endif

int torch_cuda_device_count(void) { return torch_cpu_add(c10_cuda_device_count(), 0); }

int torch_cuda_runtime_version(void) {
  int version = 0;
  return cudaRuntimeGetVersion(&version) == 0 ? version : -1;
}

long torch_cuda_cudnn_version(void) { return (long)cudnnGetVersion(); }

int torch_cuda_nccl_version(void) {
  int version = 0;
  return ncclGetVersion(&version) == 0 ? version : -1;
}

/* Sums every library's version number; -1 when one reports an error. */
long torch_cuda_library_check(void) {
  int value = 0;
  int major = 0;
  int minor = 0;
  unsigned cupti = 0;
  long sum = (long)cublasLtGetVersion() + (long)cudnnGetVersion();
  if (cublasGetVersion_v2(0, &value) != 0) return -1;
  sum += value;
  if (cufftGetVersion(&value) != 0) return -1;
  sum += value;
  if (curandGetVersion(&value) != 0) return -1;
  sum += value;
#if defined(SAMPLE_CUSPARSE_PROPERTY)
  if (cusparseGetProperty(0, &value) != 0) return -1;
#else
  if (cusparseGetVersion(0, &value) != 0) return -1;
#endif
  sum += value;
  if (cusolverGetVersion(&value) != 0) return -1;
  sum += value;
  if (nvrtcVersion(&major, &minor) != 0) return -1;
  if (cuptiGetVersion(&cupti) != 0) return -1;
#ifdef SAMPLE_WITH_CUSPARSELT
  if (cusparseLtGetVersion(0, &value) != 0) return -1;
  sum += value;
#endif
#ifdef SAMPLE_WITH_CUFILE
  if (cuFileGetVersion(&value) != 0) return -1;
  sum += value;
#endif
#ifdef SAMPLE_WITH_NVSHMEM
  sum += torch_nvshmem_version();
#endif
#ifdef SAMPLE_NO_NVTX
  return sum + major + minor + (long)cupti + torch_cuda_nccl_version();
#else
  return sum + major + minor + (long)cupti + nvtxRangePushA("sample") + torch_cuda_nccl_version();
#endif
}
