/* Link-time stand-in for libsycl.so.8 (Intel's SYCL runtime, shipped by the
 * intel-sycl-rt wheel, which the sample does not serve). The real library
 * exports C++ symbols; one C function is enough to link against. */
int sycl_sample_device_count(void) { return 1; }
