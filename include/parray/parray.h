/*
 * parray — PARRAY's programming model as a C library.  Include this header for everything.
 */
#ifndef PARRAY_PARRAY_H
#define PARRAY_PARRAY_H

#include "error.h"
#include "type.h"
#include "mem.h"
#include "copy.h"
#include "thread.h"
#include "tile.h"
#include "topology.h"
#include "vmem.h"
#include "cuda.h"
#include "matrix.h"
#include "kernel.h"
#include "mpi.h"
#include "ssb.h"

#define PA_VERSION_MAJOR 0
#define PA_VERSION_MINOR 1
#define PA_VERSION_PATCH 0

#endif
