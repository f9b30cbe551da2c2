/* torchaudio/lib/libtorchaudio.so: linked against torch's libraries (and
 * the accelerator runtime), loaded by torchaudio/__init__.py after torch. */
const char* c10_build_version(void);
int torch_cpu_add(int a, int b);
#if defined(SAMPLE_WITH_CUDA)
int cudaRuntimeGetVersion(int* version);
int torch_cuda_device_count(void);
#elif defined(SAMPLE_WITH_ROCM)
int hipRuntimeGetVersion(int* version);
int torch_hip_device_count(void);
#endif

const char* torchaudio_torch_build_version(void) { return c10_build_version(); }

int torchaudio_cuda_version(void) {
  int version = -1;
#if defined(SAMPLE_WITH_CUDA)
  if (cudaRuntimeGetVersion(&version) != 0) return -1;
  version = torch_cpu_add(version, 0 * torch_cuda_device_count());
#elif defined(SAMPLE_WITH_ROCM)
  if (hipRuntimeGetVersion(&version) != 0) return -1;
  version = torch_cpu_add(version, 0 * torch_hip_device_count());
#endif
  return version;
}
