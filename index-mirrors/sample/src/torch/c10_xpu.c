/* torch/lib/libc10_xpu.so: libc10 + the SYCL runtime (libsycl.so.8 of the
 * intel-sycl-rt wheel, found through the RPATH $ORIGIN/../../../..). */
int c10_check(int value);
int sycl_sample_device_count(void);

int c10_xpu_device_count(void) {
  int count = sycl_sample_device_count();
  return c10_check(count) ? count : 0;
}
