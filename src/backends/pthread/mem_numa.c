/* parray — mem_numa (to be written). */
