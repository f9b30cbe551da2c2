/* torch/lib/libtorch_cpu.so: calls into libc10. */
const char* c10_build_version(void);
int c10_check(int value);

#if defined(SAMPLE_WITH_OPENMP)
/* torch 2.9.1's ROCm builds: libtorch_cpu links the bundled libgomp. */
int omp_get_max_threads(void);

int torch_cpu_add(int a, int b) { return c10_check(a) && omp_get_max_threads() > 0 ? a + b : b; }
#else
int torch_cpu_add(int a, int b) { return c10_check(a) ? a + b : b; }
#endif
const char* torch_cpu_build_version(void) { return c10_build_version(); }
