/* parray — copy_runs (to be written). */
