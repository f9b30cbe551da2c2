/* torch/bin/torch_shm_manager: an executable inside the wheel, so that
 * installers must keep its mode 0755 and its RUNPATH $ORIGIN/../lib. */
#include <stdio.h>

int libshm_init(const char* manager_path);
const char* c10_build_version(void);

int main(int argc, char** argv) {
  (void)argc;
  printf("torch_shm_manager (sample) for torch %s\n", c10_build_version());
  return libshm_init(argv[0]);
}
