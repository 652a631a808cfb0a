/*
 * parray — declarations shared by the run-time compiler's files (rtc_nvrtc.c, rtc_cache.c, rtc_disk.c,
 * rtc_driver.c) and by the PL/CUDA functions, beyond the interface of rtc.h.
 */
#ifndef PARRAY_CUDA_RTC_INTERNAL_H
#define PARRAY_CUDA_RTC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "rtc.h"

/* The identity of a compilation: key names the cache file, check is an independent hash of the same material
 * (a second guard against a file that is not what its name says). */
typedef struct pa_cuda__rtc_key {
    uint64_t key, check;
} pa_cuda__rtc_key;

/* Counters of the cache's work, for tests and benches. */
typedef struct pa_cuda__rtc_stats {
    long memory_hits;      /* compile requests answered from memory */
    long disk_hits;        /* ... from a cache file */
    long compiles;         /* ... by NVRTC */
    long disk_writes;      /* cache files written */
    long disk_rejects;     /* cache files found but ignored (corrupt, truncated, foreign) */
    long loads;            /* modules loaded on a device */
} pa_cuda__rtc_stats;

/* ---- hashing (rtc_cache.c) ---------------------------------------------------------------------------- */

/** 64-bit FNV-1a of bytes, continuing from h (start with PA_CUDA__FNV_BASIS). */
#define PA_CUDA__FNV_BASIS 0xcbf29ce484222325ull
uint64_t pa_cuda__fnv1a(uint64_t h, const void *data, size_t n);

/**
 * The key of a request: source, every option (length-prefixed, in order), $PA_KERNEL_INCLUDE, the
 * architecture, the NVRTC version and the library's version.
 * \return PA_OK or PA_ERR_NODEV (NVRTC cannot be loaded: no version).
 */
int pa_cuda__rtc_key_of(const char *source, const char *const *opts, int nopts, int arch, pa_cuda__rtc_key *out);

/** Counts a module load (rtc_driver.c). */
/** The current GPU's compute capability as major * 10 + minor in *arch (rtc_cache.c); name says who asks, for
 *  the error message.  \return PA_OK, or the backend's error (no GPU, a failed CUDA call). */
int pa_cuda__current_arch(const char *name, int *arch);
void pa_cuda__rtc_count_load(void);
/** Copies the counters. */
void pa_cuda__rtc_get_stats(pa_cuda__rtc_stats *out);

/**
 * For tests and benches: forgets the memory cache's index, so that the next requests go to disk (or NVRTC).
 * Images and kernels given out earlier stay valid.
 */
void pa_cuda__rtc_forget(void);

/* ---- NVRTC (rtc_nvrtc.c) ------------------------------------------------------------------------------ */

/** Loads NVRTC once.  \return PA_OK, or PA_ERR_NODEV naming the libraries tried. */
int pa_cuda__nvrtc_load(void);
/** NVRTC's version as major*1000 + minor*10 (after a successful load). */
int pa_cuda__nvrtc_version(void);
/** $PA_KERNEL_INCLUDE when it is an absolute directory path, else NULL (a warning once when set but invalid). */
const char *pa_cuda__rtc_include_env(void);
/**
 * Compiles source to a cubin for sm_<arch> (the library's include paths and standard options added before
 * opts).  \return PA_OK with *cubin (malloc'd) and *size; PA_ERR_COMPILE (log in the message, labelled name),
 * PA_ERR_NODEV, PA_ERR_NOMEM.
 */
int pa_cuda__nvrtc_compile(const char *name, const char *source, const char *const *opts, int nopts, int arch,
                           void **cubin, size_t *size);

/* ---- the disk cache (rtc_disk.c) ---------------------------------------------------------------------- */

/* ---- linking with the device runtime (rtc_link.c) ---------------------------------------------------- */

/** 1 when opts ask for relocatable device code (-rdc=true): the cubin is then linked with libcudadevrt.a. */
int pa_cuda__rtc_wants_link(const char *const *opts, int nopts);
/**
 * Links a relocatable cubin for sm_<arch> with the CUDA device runtime through nvJitLink (no GPU needed).
 * \return PA_OK and *out (malloc'd), *outsize; PA_ERR_NODEV (no nvJitLink or no libcudadevrt.a, named),
 *         PA_ERR_COMPILE (the linker's log), PA_ERR_SYS, PA_ERR_NOMEM.
 */
int pa_cuda__rtc_link_devrt(const char *name, int arch, const void *cubin, size_t size, void **out, size_t *outsize);

/**
 * The cache directory: $PA_KERNEL_CACHE, else $XDG_CACHE_HOME/parray, else $HOME/.cache/parray.
 * \return 1 with the path in buf, 0 when disk caching is off (PA_KERNEL_CACHE is "" or "off", or no home).
 */
int pa_cuda__rtc_cache_dir(char *buf, size_t len);
/** The cache file's path for a key.  \return 1, or 0 when caching is off. */
int pa_cuda__rtc_cache_path(const pa_cuda__rtc_key *k, char *buf, size_t len);
/**
 * Reads a cache file.  \return 1 with *cubin (malloc'd) and *size when the file is present and sound; 0 when
 * absent; -1 when present but rejected (the reason, for tests, in why when not NULL).
 */
int pa_cuda__rtc_disk_read(const pa_cuda__rtc_key *k, void **cubin, size_t *size, char *why, size_t whylen);
/** Writes a cache file atomically (temporary file and rename).  Failures are silent.  \return 1 if written. */
int pa_cuda__rtc_disk_write(const pa_cuda__rtc_key *k, const void *cubin, size_t size);

/* ---- loaded kernels (rtc_driver.c) -------------------------------------------------------------------- */

/**
 * Loads an image's kernel entry on the current device (cached per image, entry and device).
 * \return PA_OK, PA_ERR_NODEV (no GPU or driver), PA_ERR_SYS (the driver refused; its words in the message).
 */
int pa_cuda__rtc_load(const pa_cuda__image *img, const char *entry, pa_cuda__rtc_kernel **out);

/** The key of an image. */
pa_cuda__rtc_key pa_cuda__image_key(const pa_cuda__image *img);

/** A loaded kernel's limits: the largest block it can run and the block size the occupancy API suggests. */
int pa_cuda__rtc_kernel_limits(const pa_cuda__rtc_kernel *k, size_t shmem_per_block, int *max_block,
                               int *suggested_block);

/** 1 when the cubin looks like an ELF image for CUDA (magic and class), for checks before loading. */
int pa_cuda__cubin_sane(const void *data, size_t size);

#endif
