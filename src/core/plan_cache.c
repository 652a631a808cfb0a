/* parray — plan_cache (to be written). */
