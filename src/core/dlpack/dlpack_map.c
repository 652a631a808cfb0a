/*
 * parray — DLPack's names for parray's element and memory types (see dlpack_map.h).
 */
#include <string.h>

#include "dlpack_map.h"

/* Element type names and their DLPack types; where several names share a type, the first is the import's. */
static const struct {
    const char *name;
    uint8_t code, bits;
    uint16_t lanes;
} elms[] = {
    {"int8_t", kDLInt, 8, 1},      {"char", kDLInt, 8, 1},         {"signed char", kDLInt, 8, 1},
    {"uint8_t", kDLUInt, 8, 1},    {"unsigned char", kDLUInt, 8, 1},
    {"int16_t", kDLInt, 16, 1},    {"short", kDLInt, 16, 1},
    {"uint16_t", kDLUInt, 16, 1},  {"unsigned short", kDLUInt, 16, 1},
    {"int32_t", kDLInt, 32, 1},    {"int", kDLInt, 32, 1},
    {"uint32_t", kDLUInt, 32, 1},  {"unsigned", kDLUInt, 32, 1},   {"unsigned int", kDLUInt, 32, 1},
    {"int64_t", kDLInt, 64, 1},    {"long", kDLInt, 64, 1},        {"long long", kDLInt, 64, 1},
    {"uint64_t", kDLUInt, 64, 1},  {"unsigned long", kDLUInt, 64, 1}, {"unsigned long long", kDLUInt, 64, 1},
    {"size_t", kDLUInt, 64, 1},    {"money", kDLInt, 64, 1},   /* the count of cents: exported, never imported */
    {"half", kDLFloat, 16, 1},     {"float", kDLFloat, 32, 1},     {"double", kDLFloat, 64, 1},
    {"bfloat16", kDLBfloat, 16, 1},
    {"float2", kDLFloat, 32, 2},   {"float4", kDLFloat, 32, 4},    {"double2", kDLFloat, 64, 2},
    {"int2", kDLInt, 32, 2},       {"int4", kDLInt, 32, 4},
    {"bool", PA_DLPACK_BOOL, 8, 1},
};

int pa__dl_dtype_of(const char *elm, DLDataType *out)
{
    for (size_t i = 0; i < sizeof elms / sizeof elms[0]; i++)
        if (strcmp(elms[i].name, elm) == 0) {
            out->code = elms[i].code;
            out->bits = elms[i].bits;
            out->lanes = elms[i].lanes;
            return 1;
        }
    return 0;
}

const char *pa__dl_elm_of(DLDataType t)
{
    /* Complex numbers are pairs (real, imaginary) of their half-width floats. */
    if (t.code == kDLComplex && t.lanes == 1 && (t.bits == 64 || t.bits == 128))
        return t.bits == 64 ? "float2" : "double2";
    for (size_t i = 0; i < sizeof elms / sizeof elms[0]; i++)
        if (elms[i].code == t.code && elms[i].bits == t.bits && elms[i].lanes == t.lanes)
            return elms[i].name;
    return NULL;
}

static const struct {
    const char *mtt;
    int device;
} devices[] = {
    {"paged", kDLCPU}, {"numa", kDLCPU}, {"mmap", kDLCPU}, {"vmem", kDLCPU},
    {"pinned", kDLCUDAHost}, {"dmem", kDLCUDA},
};

const char *pa__dl_mtt_of(int device_type)
{
    if (device_type == kDLCUDAManaged)
        return "dmem";   /* managed memory is device memory to the CUDA copies (cudaPointerGetAttributes) */
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
        if (devices[i].device == device_type)
            return devices[i].mtt;   /* the first: kDLCPU is paged */
    return NULL;
}

int pa__dl_device_of(const char *mtt)
{
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
        if (strcmp(devices[i].mtt, mtt) == 0)
            return devices[i].device;
    return 0;
}
