/* parray — copy_gather (to be written). */
