/* torch/lib/libtorch_xpu.so: the XPU backend, on libc10_xpu and SYCL. */
int c10_xpu_device_count(void);
int torch_cpu_add(int a, int b);
int sycl_sample_device_count(void);

int torch_xpu_device_count(void) {
  return torch_cpu_add(c10_xpu_device_count(), 0 * sycl_sample_device_count());
}
