/* torch/lib/libtorch_global_deps.so. The real one holds no code:
 * torch/__init__.py loads it with RTLD_GLOBAL so that the libraries it
 * links (the CUDA ones in a CUDA wheel) are loaded first. */
int torch_global_deps_marker(void) { return 0; }
