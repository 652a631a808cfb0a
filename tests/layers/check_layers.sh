#!/usr/bin/env bash
# The test of scripts/check-layers.sh: the tree as it is passes (its includes and, from the build's objects,
# its calls); copies of it with an upward include planted, an include of a backend's header, stray files, two
# headers of one name, and objects that call upward each fail, naming the file, what it imports and the layers.
#
#     tests/layers/check_layers.sh SOURCE_ROOT BUILD_ROOT
set -euo pipefail

src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# Runs the script on a root; expects exit status $1 and every later argument in its output.
expect() {
    local want=$1 root=$2 builddir=$3
    shift 3
    local out rc=0
    out=$("$src/scripts/check-layers.sh" --root "$root" "$builddir" 2>&1) || rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "check-layers on $root exited $rc, expected $want; it said:"
        printf '%s\n' "$out"
        return
    fi
    for s in "$@"; do
        grep -qF -- "$s" <<<"$out" || { fail "check-layers did not say '$s'; it said:"; printf '%s\n' "$out"; }
    done
}

# The tree as it is, with the build's objects.
expect 0 "$src" "$build" "import only downward"

# A copy of what the script reads: the top meson.build and src/ (headers and sources).
fresh() {
    rm -rf "$tmp/tree"
    mkdir -p "$tmp/tree"
    cp "$src/meson.build" "$tmp/tree/"
    cp -r "$src/src" "$tmp/tree/src"
}
fresh
expect 0 "$tmp/tree" "$tmp/none" "import only downward" "calls not"

# An upward include: the type language includes the planner's header.
printf '#include "plan.h"\n' >>"$tmp/tree/src/core/types/lexer.c"
expect 1 "$tmp/tree" "$tmp/none" "src/core/types/lexer.c:" "includes \"plan.h\"" "layer types" "layer plan"

# The core includes a backend's header, and the umbrella header.
fresh
printf '#include "../../backends/cuda/rtc.h"\n#include "internal.h"\n' >>"$tmp/tree/src/core/dlpack/dlpack_export.c"
expect 1 "$tmp/tree" "$tmp/none" "src/core/dlpack/dlpack_export.c:" "src/backends/cuda/rtc.h, which is above the core" \
    "src/core/internal.h, which is above the core"

# A build option tested outside backends.c: in a module above the core and in a test.
fresh
printf '#if PA_HAVE_NUMA\n#endif\n' >>"$tmp/tree/src/query/ssb_schema.c"
mkdir -p "$tmp/tree/tests/host"
printf '#ifdef PA_HAVE_CUDA\n#endif\n' >"$tmp/tree/tests/host/planted.c"
expect 1 "$tmp/tree" "$tmp/none" "src/query/ssb_schema.c:" "tests/host/planted.c:1 tests a build option"
rm -rf "$tmp/tree/tests"

# A file outside every layer, and a folder that is no layer.
fresh
: >"$tmp/tree/src/core/stray.c"
mkdir "$tmp/tree/src/core/extra"
expect 1 "$tmp/tree" "$tmp/none" "src/core/stray.c is in no layer" "src/core/extra/ is not a layer"

# Two headers of the core with one name: an include by name would be ambiguous.
fresh
: >"$tmp/tree/src/core/types/plan.h"
expect 1 "$tmp/tree" "$tmp/none" "another header of the core is called plan.h"

# Calls, from objects: the type layer calls the planner, the layout layer a backend's function.
if command -v cc >/dev/null && command -v nm >/dev/null; then
    fresh
    objs=$tmp/objs/lib.p
    mkdir -p "$objs"
    printf 'int pa__plan_get(void) { return 1; }\n' >"$tmp/plan.c"
    printf 'int pa__plan_get(void);\nint pa__lex_probe(void) { return pa__plan_get(); }\n' >"$tmp/lexer.c"
    printf 'int pa__cuda_probe(void) { return 2; }\nint pa__backend_cuda = 1;\n' >"$tmp/cuda.c"
    printf 'int pa__cuda_probe(void);\nint pa__walk_probe(void) { return pa__cuda_probe(); }\n' >"$tmp/walk.c"
    printf 'extern int pa__backend_cuda;\nint pa__list_probe(void) { return pa__backend_cuda; }\n' >"$tmp/list.c"
    cc -c "$tmp/plan.c" -o "$objs/src_core_plan_plan.c.o"
    cc -c "$tmp/lexer.c" -o "$objs/src_core_types_lexer.c.o"
    cc -c "$tmp/cuda.c" -o "$objs/src_backends_cuda_backend_cuda.c.o"
    cc -c "$tmp/walk.c" -o "$objs/src_core_layout_walk.c.o"
    cc -c "$tmp/list.c" -o "$objs/src_core_backends_backends.c.o"
    expect 1 "$tmp/tree" "$tmp/objs" "src/core/types/lexer.c uses pa__plan_get of src/core/plan/plan.c" \
        "layer types calls layer plan" "src/core/layout/walk.c uses pa__cuda_probe" "layer layout calls code above the core"
    if "$src/scripts/check-layers.sh" --root "$tmp/tree" "$tmp/objs" 2>&1 | grep -q pa__backend_cuda; then
        fail "the backend list's use of a backend's description was reported"
    fi
else
    echo "cc or nm missing: the calls are not tested"
fi

if [ "$failures" -gt 0 ]; then
    echo "$failures failures"
    exit 1
fi
echo "check-layers: every planted breach was found, and the tree passes"
