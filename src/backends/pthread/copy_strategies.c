/* parray — copy_strategies (to be written). */
