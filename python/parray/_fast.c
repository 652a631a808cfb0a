/*
 * parray._fast: the fast path of parray.copy() between two NumPy arrays (or any objects with the buffer
 * protocol) in host memory.  Python (core.py) hands over, for each side, the type's handle, the bytes its
 * offsets reach, its element kind and size, and the object; this file takes the buffers (C-contiguous, the
 * destination writable), checks the element type and the size, and calls pa_copy without the GIL.
 *
 * Anything it does not accept it leaves to the checked path in Python, which says what is wrong: it returns 1
 * ("not here") without raising; 0 when copied; a negative parray status when the library refused the copy.
 * The address of pa_copy comes from the library that ctypes loaded (init), so this module links nothing.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef int (*copy_fn)(const void *dst_type, void *dst, const void *src_type, const void *src);
static copy_fn pa_copy_p;

/* The element kind of a buffer's format ('i', 'u', 'f', 'c', 'b'), or 0 for one not handled here. */
static char format_kind(const char *f)
{
    if (f == NULL)
        return 'u';  /* plain bytes */
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    if (f[0] == 'Z' && (f[1] == 'f' || f[1] == 'd') && f[2] == '\0')
        return 'c';
    if (f[0] == '\0' || f[1] != '\0')
        return 0;
    switch (f[0]) {
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': return 'i';
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': return 'u';
    case 'e': case 'f': case 'd': return 'f';
    case '?': return 'b';
    default: return 0;
    }
}

/* Takes one side's buffer; 1 when it is not for the fast path (buffer released), 0 when taken. */
static int take(PyObject *obj, int writable, Py_ssize_t need, char kind, Py_ssize_t itemsize, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) != 0) {
        PyErr_Clear();
        return 1;
    }
    if (view->itemsize != itemsize || format_kind(view->format) != kind || view->len < need) {
        PyBuffer_Release(view);
        return 1;
    }
    return 0;
}

/* copy(dh, dneed, dkind, dsize, dst, sh, sneed, skind, ssize, src) -> 0, 1 or a negative status */
static PyObject *fast_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer d, s;
    void *dh, *sh;
    Py_ssize_t dneed, sneed, dsize, ssize;
    const char *dkind, *skind;
    int rc;

    if (nargs != 10 || pa_copy_p == NULL) {
        PyErr_SetString(PyExc_TypeError, "_fast.copy: 10 arguments, after init");
        return NULL;
    }
    dh = PyLong_AsVoidPtr(args[0]);
    dneed = PyLong_AsSsize_t(args[1]);
    dkind = PyUnicode_AsUTF8(args[2]);
    dsize = PyLong_AsSsize_t(args[3]);
    sh = PyLong_AsVoidPtr(args[5]);
    sneed = PyLong_AsSsize_t(args[6]);
    skind = PyUnicode_AsUTF8(args[7]);
    ssize = PyLong_AsSsize_t(args[8]);
    if (PyErr_Occurred())
        return NULL;
    if (take(args[4], 1, dneed, dkind[0], dsize, &d) != 0)
        return PyLong_FromLong(1);
    if (take(args[9], 0, sneed, skind[0], ssize, &s) != 0) {
        PyBuffer_Release(&d);
        return PyLong_FromLong(1);
    }
    /* Small copies keep the GIL: releasing it costs more than they take. */
    if (d.len > (1 << 16)) {
        Py_BEGIN_ALLOW_THREADS
        rc = pa_copy_p(dh, d.buf, sh, s.buf);
        Py_END_ALLOW_THREADS
    } else {
        rc = pa_copy_p(dh, d.buf, sh, s.buf);
    }
    PyBuffer_Release(&s);
    PyBuffer_Release(&d);
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
    {"copy", (PyCFunction)(void (*)(void))fast_copy, METH_FASTCALL, "pa_copy between two host buffers"},
    {"init", fast_init, METH_O, "sets the address of pa_copy"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fast", "parray's fast copy path", -1, methods};

PyMODINIT_FUNC PyInit__fast(void)
{
    return PyModule_Create(&module);
}
