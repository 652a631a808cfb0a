/* parray — instance (to be written). */
