/* torchao/_C.abi3.so: torchao's stable-ABI extension, linked against
 * torch's libraries and the CUDA runtime of its variant. */
const char* c10_build_version(void);
int torch_cpu_add(int a, int b);
int c10_cuda_device_count(void);
int torch_cuda_device_count(void);
int cudaRuntimeGetVersion(int* version);

const char* torchao_torch_build_version(void) { return c10_build_version(); }

int torchao_cuda_version(void) {
  int version = -1;
  if (cudaRuntimeGetVersion(&version) != 0) return -1;
  return torch_cpu_add(version, 0 * (c10_cuda_device_count() + torch_cuda_device_count()));
}

const char* torchao_version(void) { return SAMPLE_BUILD_VERSION; }
