/* torch/lib/libtorch.so: the thin library that pulls in libtorch_cpu and
 * the accelerator library, as in the real wheel. */
int torch_cpu_add(int a, int b);
#if defined(SAMPLE_WITH_CUDA)
int torch_cuda_device_count(void);
#elif defined(SAMPLE_WITH_ROCM)
int torch_hip_device_count(void);
#endif

int torch_device_count(void) {
#if defined(SAMPLE_WITH_CUDA)
  return torch_cpu_add(torch_cuda_device_count(), 0);
#elif defined(SAMPLE_WITH_ROCM)
  return torch_cpu_add(torch_hip_device_count(), 0);
#else
  return torch_cpu_add(0, 0);
#endif
}
