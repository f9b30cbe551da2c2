/* torchvision/_C.so: linked against torch's libraries (and the accelerator
 * runtime), loaded by torchvision/__init__.py after torch. */
const char* c10_build_version(void);
int torch_cpu_add(int a, int b);
#if defined(SAMPLE_WITH_CUDA)
int cudaRuntimeGetVersion(int* version);
int c10_cuda_device_count(void);
int torch_cuda_device_count(void);
#elif defined(SAMPLE_WITH_ROCM)
int hipRuntimeGetVersion(int* version);
int c10_hip_device_count(void);
int torch_hip_device_count(void);
#endif

const char* vision_torch_build_version(void) { return c10_build_version(); }

/* Like torchvision's _cuda_version(): -1 for a CPU build. */
int vision_cuda_version(void) {
  int version = -1;
#if defined(SAMPLE_WITH_CUDA)
  if (cudaRuntimeGetVersion(&version) != 0) return -1;
  version = torch_cpu_add(version, 0 * (c10_cuda_device_count() + torch_cuda_device_count()));
#elif defined(SAMPLE_WITH_ROCM)
  if (hipRuntimeGetVersion(&version) != 0) return -1;
  version = torch_cpu_add(version, 0 * (c10_hip_device_count() + torch_hip_device_count()));
#endif
  return version;
}
