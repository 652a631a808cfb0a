/* parray — copy_threads (to be written). */
