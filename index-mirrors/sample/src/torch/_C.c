/* torch/_C.cpython-3XY-<arch>-linux-gnu.so: a real CPython extension module,
 * so `import torch` really loads the library chain (_C -> libtorch_python ->
 * libtorch -> libtorch_cuda -> libcudart ...) the way the real wheel does. */
#include "../python_abi.h"

const char* torch_python_build_version(void);
int torch_python_init(void);
#if defined(SAMPLE_WITH_CUDA) || defined(SAMPLE_WITH_ROCM)
int torch_python_device_count(void);
long torch_python_runtime_version(void);
long torch_python_ccl_version(void);
long torch_python_library_check(void);
#endif
#if defined(SAMPLE_WITH_CUDA)
long torch_python_dnn_version(void);
#endif

static PyObject* build_version(PyObject* self, PyObject* args) {
  (void)self;
  (void)args;
  return PyUnicode_FromString(torch_python_build_version());
}

static PyObject* init_status(PyObject* self, PyObject* args) {
  (void)self;
  (void)args;
  return PyLong_FromLong(torch_python_init());
}

#if defined(SAMPLE_WITH_CUDA) || defined(SAMPLE_WITH_ROCM)
static PyObject* device_count(PyObject* self, PyObject* args) {
  (void)self;
  (void)args;
  return PyLong_FromLong(torch_python_device_count());
}

static PyObject* runtime_version(PyObject* self, PyObject* args) {
  (void)self;
  (void)args;
  return PyLong_FromLong(torch_python_runtime_version());
}

static PyObject* ccl_version(PyObject* self, PyObject* args) {
  (void)self;
  (void)args;
  return PyLong_FromLong(torch_python_ccl_version());
}

static PyObject* library_check(PyObject* self, PyObject* args) {
  (void)self;
  (void)args;
  return PyLong_FromLong(torch_python_library_check());
}
#endif
#if defined(SAMPLE_WITH_CUDA)
static PyObject* dnn_version(PyObject* self, PyObject* args) {
  (void)self;
  (void)args;
  return PyLong_FromLong(torch_python_dnn_version());
}
#endif

static PyMethodDef methods[] = {
    {"_build_version", build_version, METH_NOARGS, "version of the loaded libc10"},
    {"_init_status", init_status, METH_NOARGS, "0 when the native libraries answer"},
#if defined(SAMPLE_WITH_CUDA) || defined(SAMPLE_WITH_ROCM)
    {"_cuda_getDeviceCount", device_count, METH_NOARGS, "devices the runtime reports"},
    {"_runtime_version", runtime_version, METH_NOARGS,
     "cudaRuntimeGetVersion / hipRuntimeGetVersion"},
    {"_nccl_version", ccl_version, METH_NOARGS, "ncclGetVersion of the loaded NCCL / RCCL"},
    {"_library_check", library_check, METH_NOARGS, "calls every accelerator library; -1 on error"},
#endif
#if defined(SAMPLE_WITH_CUDA)
    {"_cudnn_version", dnn_version, METH_NOARGS, "cudnnGetVersion of the loaded cuDNN"},
#endif
    {0, 0, 0, 0},
};

static PyModuleDef module = {
    SAMPLE_MODULEDEF_HEAD_INIT, "torch._C", "sample torch._C", 0, methods, 0, 0, 0, 0,
};

PyObject* PyInit__C(void) { return PyModuleDef_Init(&module); }
