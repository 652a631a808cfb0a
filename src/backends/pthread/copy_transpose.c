/* parray — copy_transpose (to be written). */
