/* torch/lib/libtorch_cpu.so: calls into libc10. */
const char* c10_build_version(void);
int c10_check(int value);

int torch_cpu_add(int a, int b) { return c10_check(a) ? a + b : b; }
const char* torch_cpu_build_version(void) { return c10_build_version(); }
