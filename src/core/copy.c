/* parray — copy (to be written). */
