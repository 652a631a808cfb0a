/* parray — mtt (to be written). */
