/* parray — query (to be written). */
