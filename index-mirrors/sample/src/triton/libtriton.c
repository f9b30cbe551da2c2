/* triton/_C/libtriton.so: a CPython extension module, like the real one. */
#include "../python_abi.h"

static PyObject* version(PyObject* self, PyObject* args) {
  (void)self;
  (void)args;
  return PyUnicode_FromString(SAMPLE_BUILD_VERSION);
}

static PyMethodDef methods[] = {
    {"_version", version, METH_NOARGS, "the triton version this library was built for"},
    {0, 0, 0, 0},
};

static PyModuleDef module = {
    SAMPLE_MODULEDEF_HEAD_INIT, "triton._C.libtriton", "sample libtriton", 0, methods, 0, 0, 0, 0,
};

PyObject* PyInit_libtriton(void) { return PyModuleDef_Init(&module); }
