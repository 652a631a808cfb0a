/* parray — layout_compile (to be written). */
