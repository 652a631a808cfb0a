/* parray — plan (to be written). */
