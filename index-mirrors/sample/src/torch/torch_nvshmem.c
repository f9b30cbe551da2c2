/* torch/lib/libtorch_nvshmem.so (torch >= 2.8): symmetric memory over
 * NVSHMEM, the one torch library that links libnvshmem_host.so.3. */
void nvshmem_info_get_version(int* major, int* minor);
int cudaRuntimeGetVersion(int* version);
int c10_check(int value);

/* NVSHMEM's major * 1000 + minor * 10; -1 when the runtime does not answer. */
int torch_nvshmem_version(void) {
  int major = 0;
  int minor = 0;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) != 0) return -1;
  nvshmem_info_get_version(&major, &minor);
  return c10_check(major) ? major * 1000 + minor * 10 : -1;
}
