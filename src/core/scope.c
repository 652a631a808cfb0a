/* parray — scope (to be written). */
