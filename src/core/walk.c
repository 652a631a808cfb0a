/* parray — walk (to be written). */
