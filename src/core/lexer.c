/* parray — lexer (to be written). */
