/* parray — builder (to be written). */
