/* parray — expr (to be written). */
