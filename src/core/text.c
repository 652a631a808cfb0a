/* parray — text (to be written). */
