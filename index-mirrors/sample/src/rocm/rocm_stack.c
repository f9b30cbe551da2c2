/* The ROCm stack of torch 2.9.1's ROCm wheels (bundled in torch/lib under the
 * link names, pytorch .ci/manywheel/build_common.sh) and of the sample
 * EasyBuild ROCm 6.4.1 modules: one stand-in per library, all from this file
 * (samplegen/facts.py ROCM_LIBRARIES). Each build defines
 *
 *   SAMPLE_IDENT    the library's name in C: amdhip64, hsa_runtime64, ...
 *   SAMPLE_DEPS(X)  X(ident) for every library it links (its DT_NEEDED)
 *   SAMPLE_BUILD    "<version number> <which build>"; the wheels' copies are
 *                   compiled with a placeholder written over afterwards
 *                   (native.py ROCM_SLOT)
 *   SAMPLE_API_*    the real entry points torch calls, where it calls some
 *
 * Every library exports sample_check_<ident>() (which calls those of the
 * libraries it links, so each DT_NEEDED edge is used), and, under the same
 * names in every library, sample_library_path() (the file the loader mapped
 * it from, by dladdr) and sample_library_build() (SAMPLE_BUILD): a test
 * dlopens a library by name (or path) and asks it where it came from. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

#define SAMPLE_CAT_(a, b) a##b
#define SAMPLE_CAT(a, b) SAMPLE_CAT_(a, b)
#define SAMPLE_DECLARE(dep) int SAMPLE_CAT(sample_check_, dep)(void);
#define SAMPLE_CALL(dep) total += SAMPLE_CAT(sample_check_, dep)();

SAMPLE_DEPS(SAMPLE_DECLARE)

static const char sample_build[] = SAMPLE_BUILD;

/* Local, so that dladdr names this library whichever copy defines the
 * exported names first in the process. */
static void sample_anchor(void) {}

const char* sample_library_path(void) {
  Dl_info info;
  if (dladdr((void*)sample_anchor, &info) != 0 && info.dli_fname != NULL) return info.dli_fname;
  return "";
}

const char* sample_library_build(void) { return sample_build; }

static inline int sample_version(void) { return atoi(sample_build); }

int SAMPLE_CAT(sample_check_, SAMPLE_IDENT)(void) {
  int total = 1;
  SAMPLE_DEPS(SAMPLE_CALL)
  return total;
}

#if defined(SAMPLE_API_HSA)
int hsa_init(void) { return 0; }
#endif

#if defined(SAMPLE_API_HIP)
int hsa_init(void);
/* Without a GPU the real runtime answers hipErrorNoDevice (100) and no
 * devices, so torch.cuda.is_available() is False. */
int hipGetDeviceCount(int* count) {
  *count = 0;
  return hsa_init() == 0 ? 100 : 1;
}
int hipRuntimeGetVersion(int* version) {
  *version = sample_version();
  return 0;
}
#endif

#if defined(SAMPLE_API_HIPRTC)
int hiprtcVersion(int* major, int* minor) {
  *major = sample_version() / 10000000;
  *minor = sample_version() / 100000 % 100;
  return 0;
}
#endif

#if defined(SAMPLE_API_COMGR)
void amd_comgr_get_version(size_t* major, size_t* minor) {
  *major = (size_t)(sample_version() / 10000);
  *minor = (size_t)(sample_version() / 100 % 100);
}
#endif

#if defined(SAMPLE_API_ROCBLAS)
int rocblas_get_version_string_size(size_t* len) {
  *len = 16;
  return 0;
}
#endif

#if defined(SAMPLE_API_MIOPEN)
int miopenGetVersion(size_t* major, size_t* minor, size_t* patch) {
  *major = (size_t)(sample_version() / 10000);
  *minor = (size_t)(sample_version() / 100 % 100);
  *patch = (size_t)(sample_version() % 100);
  return 0;
}
#endif

#if defined(SAMPLE_API_RCCL)
/* RCCL exports the NCCL API. */
int ncclGetVersion(int* version) {
  *version = sample_version();
  return 0;
}
#endif

#if defined(SAMPLE_API_GOMP)
int omp_get_max_threads(void) { return 1; }
#endif
