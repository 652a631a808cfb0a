/* parray — parser (to be written). */
