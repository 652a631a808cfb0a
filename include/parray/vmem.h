/*
 * parray — vmem: PARRAY's vector-register memory on the CPU.
 *
 * On the Xeon Phi, "vmem" arrays lived in the 512-bit vector registers (the manual's listings 23, 26 and 47).
 * Here a vmem array is a small host buffer aligned to the vector width of the widest SIMD instruction set this
 * CPU has (AVX-512, AVX2 or SSE2, chosen at run time) and no larger than that set's register file (32 x 64 B,
 * 16 x 32 B or 16 x 16 B), so that a loop over it is one the compiler keeps in registers, and copies to and
 * from it are whole aligned vectors.  pa_create / pa_destroy make and free one; pa_copy moves data between it
 * and any host array; pa_tile and pa_tile_copy with a vmem inner type stage each tile in such a buffer for a tile
 * function, and pa_tile_copy without one moves each tile through the vector registers themselves, transposing it
 * there when it must (tile.h; a vmem tile larger than the register file is refused).  PA_VMEM_ISA=avx2|sse2|scalar
 * chooses a smaller set; any other value, or a set this CPU lacks, gives one warning on stderr and the widest set.
 */
#ifndef PARRAY_VMEM_H
#define PARRAY_VMEM_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The SIMD instruction set vmem arrays are laid out for: "avx512", "avx2", "sse2" or "scalar". */
PA_API const char *pa_vmem_isa(void);

/** Bytes of one vector register of that set: 64, 32, 16 (8 for scalar). */
PA_API int pa_vmem_width(void);

/** Vector registers of that set (32 for avx512, 16 otherwise): a vmem array holds at most width x registers bytes. */
PA_API int pa_vmem_registers(void);

#ifdef __cplusplus
}
#endif
#endif
