/* torch/lib/libc10_hip.so: libc10 + the bundled HIP runtime. */
int c10_check(int value);
int hipGetDeviceCount(int* count);

int c10_hip_device_count(void) {
  int count = 0;
  if (hipGetDeviceCount(&count) != 0) return 0;
  return c10_check(count) ? count : 0;
}
