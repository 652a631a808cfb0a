/* parray — mem_paged (to be written). */
