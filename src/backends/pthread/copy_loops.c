/* parray — copy_loops (to be written). */
