/* parray — mem_mmap (to be written). */
