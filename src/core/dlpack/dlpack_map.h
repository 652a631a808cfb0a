/*
 * parray — DLPack's names for parray's element and memory types, both ways (src/core/dlpack/dlpack_map.c), for the
 * export (dlpack_export.c) and the import (dlpack_import.c).
 */
#ifndef PARRAY_DLPACK_MAP_H
#define PARRAY_DLPACK_MAP_H

#include "parray/dlpack.h"

/** The DLPack data type of an element type name.  \return 1 and *out, or 0 when it has none. */
int pa__dl_dtype_of(const char *elm, DLDataType *out);
/** The element type name of a DLPack data type, or NULL when parray has none. */
const char *pa__dl_elm_of(DLDataType t);
/** The memory type name of a DLPack device type, or NULL. */
const char *pa__dl_mtt_of(int device_type);
/** The DLPack device type of a memory type name, or 0 when DLPack has none. */
int pa__dl_device_of(const char *mtt);

#endif
