/* parray — layout (to be written). */
