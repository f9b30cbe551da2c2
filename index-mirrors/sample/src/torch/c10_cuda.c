/* torch/lib/libc10_cuda.so: libc10 + the CUDA runtime. */
int c10_check(int value);
int cudaGetDeviceCount(int* count);

int c10_cuda_device_count(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != 0) return 0;
  return c10_check(count) ? count : 0;
}
