/* parray — mem (to be written). */
