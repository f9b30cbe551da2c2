/* torch/lib/libshm.so, used by torch_shm_manager and libtorch_python. */
int c10_check(int value);
int torch_cpu_add(int a, int b);

int libshm_init(const char* manager_path) {
  return c10_check(manager_path != 0) ? torch_cpu_add(0, 0) : -1;
}
