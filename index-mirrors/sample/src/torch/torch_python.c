/* torch/lib/libtorch_python.so: what torch/_C calls into. */
const char* c10_build_version(void);
int torch_device_count(void);
int libshm_init(const char* manager_path);
#if defined(SAMPLE_WITH_CUDA)
int cudaRuntimeGetVersion(int* version);
int nvtxRangePushA(const char* message);
int torch_cuda_device_count(void);
int torch_cuda_runtime_version(void);
long torch_cuda_cudnn_version(void);
int torch_cuda_nccl_version(void);
long torch_cuda_library_check(void);
#elif defined(SAMPLE_WITH_ROCM)
int torch_hip_device_count(void);
int torch_hip_runtime_version(void);
int torch_hip_rccl_version(void);
long torch_hip_library_check(void);
#endif

const char* torch_python_build_version(void) { return c10_build_version(); }
int torch_python_init(void) { return libshm_init("torch_shm_manager") + torch_device_count(); }

#if defined(SAMPLE_WITH_CUDA)
int torch_python_device_count(void) { return torch_cuda_device_count(); }
long torch_python_runtime_version(void) {
  int direct = 0;
  /* libtorch_python links libcudart itself, as the real one does. */
#ifdef SAMPLE_NO_NVTX
  if (cudaRuntimeGetVersion(&direct) != 0) return -1;
#else
  if (cudaRuntimeGetVersion(&direct) != 0 || nvtxRangePushA("torch_python") < 0) return -1;
#endif
  return direct == torch_cuda_runtime_version() ? direct : -1;
}
long torch_python_dnn_version(void) { return torch_cuda_cudnn_version(); }
long torch_python_ccl_version(void) { return torch_cuda_nccl_version(); }
long torch_python_library_check(void) { return torch_cuda_library_check(); }
#elif defined(SAMPLE_WITH_ROCM)
int torch_python_device_count(void) { return torch_hip_device_count(); }
long torch_python_runtime_version(void) { return torch_hip_runtime_version(); }
long torch_python_ccl_version(void) { return torch_hip_rccl_version(); }
long torch_python_library_check(void) { return torch_hip_library_check(); }
#endif
