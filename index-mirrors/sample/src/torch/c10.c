/* torch/lib/libc10.so. SAMPLE_BUILD_VERSION is the wheel's version, e.g.
 * "2.6.0+cu126", so a test can tell which torch build the loader found. */
const char* c10_build_version(void) { return SAMPLE_BUILD_VERSION; }
int c10_check(int value) { return value >= 0; }
