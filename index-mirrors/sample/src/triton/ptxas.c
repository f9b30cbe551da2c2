/* triton/backends/nvidia/bin/ptxas: the real triton wheel bundles NVIDIA's
 * ptxas; this executable only prints a version line. */
#include <stdio.h>

int main(void) {
  printf("ptxas: NVIDIA (R) Ptx optimizing assembler (sample)\n");
  printf("Cuda compilation tools, release %s\n", SAMPLE_BUILD_VERSION);
  return 0;
}
