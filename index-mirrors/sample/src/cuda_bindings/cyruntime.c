/* cuda/bindings/cyruntime.cpython-3XY-<arch>-linux-gnu.so: a real CPython
 * extension module. The real cuda-bindings finds and dlopens the CUDA
 * libraries at run time (cuda-pathfinder), so it links only libc. */
#include "../python_abi.h"

static PyObject* version(PyObject* self, PyObject* args) {
  (void)self;
  (void)args;
  return PyUnicode_FromString(SAMPLE_BUILD_VERSION);
}

static PyMethodDef methods[] = {
    {"_version", version, METH_NOARGS, "the cuda-bindings version this module was built for"},
    {0, 0, 0, 0},
};

static PyModuleDef module = {
    SAMPLE_MODULEDEF_HEAD_INIT,
    "cuda.bindings.cyruntime",
    "sample cyruntime",
    0,
    methods,
    0,
    0,
    0,
    0,
};

PyObject* PyInit_cyruntime(void) { return PyModuleDef_Init(&module); }
