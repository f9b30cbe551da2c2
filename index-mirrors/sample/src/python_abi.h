/* Just enough of CPython's stable ABI (PEP 384) to define an extension
 * module without Python.h, so the sample builds with gcc alone. The layouts
 * are those of the default (non-debug, GIL) build of CPython 3.9 to 3.13. */
#ifndef SAMPLE_PYTHON_ABI_H
#define SAMPLE_PYTHON_ABI_H

typedef long Py_ssize_t;
typedef struct PyObject {
  Py_ssize_t ob_refcnt;
  void* ob_type;
} PyObject;
typedef PyObject* (*PyCFunction)(PyObject* self, PyObject* args);
typedef struct PyMethodDef {
  const char* ml_name;
  PyCFunction ml_meth;
  int ml_flags;
  const char* ml_doc;
} PyMethodDef;
typedef struct PyModuleDef_Base {
  PyObject ob_base;
  PyObject* (*m_init)(void);
  Py_ssize_t m_index;
  PyObject* m_copy;
} PyModuleDef_Base;
typedef struct PyModuleDef {
  PyModuleDef_Base m_base;
  const char* m_name;
  const char* m_doc;
  Py_ssize_t m_size;
  PyMethodDef* m_methods;
  void* m_slots;
  void* m_traverse;
  void* m_clear;
  void* m_free;
} PyModuleDef;

#define SAMPLE_MODULEDEF_HEAD_INIT \
  { {1, 0}, 0, 0, 0 }
#define METH_NOARGS 0x0004

/* Resolved against the interpreter when the module is imported. */
PyObject* PyModuleDef_Init(PyModuleDef* def);
PyObject* PyLong_FromLong(long value);
PyObject* PyUnicode_FromString(const char* text);

#endif
