/* parray — format (to be written). */
