/*
 * parray._fast: the fast path of parray.copy() between two NumPy arrays in host memory.  Python (core.py)
 * hands over, for each side, a tuple of the type's handle, the bytes its offsets reach, its element kind and
 * size, and the array; this file checks the arrays through NumPy's C API (C-contiguous, aligned, native byte
 * order, the destination writable, the element type, the size: a few loads, where the buffer protocol costs
 * as much as the copy) and calls pa_copy, without the GIL for large copies.
 *
 * Anything it does not accept it leaves to the checked path in Python, which says what is wrong: it returns 1
 * ("not here") without raising; 0 when copied; a negative parray status when the library refused the copy.
 * The address of pa_copy comes from the library that ctypes loaded (init), so this module links nothing.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

typedef int (*copy_fn)(const void *dst_type, void *dst, const void *src_type, const void *src);
static copy_fn pa_copy_p;

/* One side: a NumPy array, C-contiguous, aligned, in native byte order, of the element kind and size and at
 * least need bytes (writable for the destination).  \return its data, or NULL when it is not for this path. */
static void *side(PyObject *obj, int writable, PyObject *info, void **type)
{
    PyArrayObject *a = (PyArrayObject *)obj;
    Py_ssize_t need, itemsize;
    long kind;
    int flags;

    if (!PyArray_CheckExact(obj) || !PyTuple_CheckExact(info) || PyTuple_GET_SIZE(info) != 4)
        return NULL;
    flags = PyArray_FLAGS(a);
    if ((flags & (NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED)) != (NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED) ||
        (writable && !(flags & NPY_ARRAY_WRITEABLE)) || !PyArray_ISNOTSWAPPED(a))
        return NULL;
    *type = PyLong_AsVoidPtr(PyTuple_GET_ITEM(info, 0));
    need = PyLong_AsSsize_t(PyTuple_GET_ITEM(info, 1));
    kind = PyLong_AsLong(PyTuple_GET_ITEM(info, 2));
    itemsize = PyLong_AsSsize_t(PyTuple_GET_ITEM(info, 3));
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return NULL;
    }
    if (PyArray_DESCR(a)->kind != kind || (Py_ssize_t)PyArray_ITEMSIZE(a) != itemsize ||
        (Py_ssize_t)PyArray_NBYTES(a) < need || *type == NULL)
        return NULL;
    return PyArray_DATA(a);
}

/* copy(dst_info, dst, src_info, src) -> 0, 1 or a negative status; info = (type, bytes needed, kind, itemsize) */
static PyObject *fast_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    void *dt, *st, *d, *s;
    int rc;

    if (nargs != 4 || pa_copy_p == NULL) {
        PyErr_SetString(PyExc_TypeError, "_fast.copy: 4 arguments, after init");
        return NULL;
    }
    d = side(args[1], 1, args[0], &dt);
    s = d != NULL ? side(args[3], 0, args[2], &st) : NULL;
    if (d == NULL || s == NULL)
        return PyLong_FromLong(1);
    /* Small copies keep the GIL: releasing it costs more than they take. */
    if (PyArray_NBYTES((PyArrayObject *)args[1]) > (1 << 16)) {
        Py_BEGIN_ALLOW_THREADS
        rc = pa_copy_p(dt, d, st, s);
        Py_END_ALLOW_THREADS
    } else {
        rc = pa_copy_p(dt, d, st, s);
    }
    return PyLong_FromLong(rc);
}

/* init(address of pa_copy) */
static PyObject *fast_init(PyObject *self, PyObject *arg)
{
    void *p = PyLong_AsVoidPtr(arg);
    if (p == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "_fast.init: NULL address");
        return NULL;
    }
    pa_copy_p = (copy_fn)p;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"copy", (PyCFunction)(void (*)(void))fast_copy, METH_FASTCALL, "pa_copy between two NumPy arrays"},
    {"init", fast_init, METH_O, "sets the address of pa_copy"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fast", "parray's fast copy path", -1, methods,
                                   NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fast(void)
{
    import_array();   /* NumPy's C API; without NumPy the import fails and core.py copies without this module */
    return PyModule_Create(&module);
}
