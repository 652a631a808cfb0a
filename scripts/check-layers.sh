#!/usr/bin/env bash
# Checks that the core's layers import only downward (docs/architecture.md, "Layers").
#
#     scripts/check-layers.sh [--root DIR] [BUILD_DIR]
#
# The layers are the folders of src/core, in the order of the core_layers line of the top meson.build (bottom
# first).  A file of a layer may include the headers of its own layer and of the layers before it, and its object
# may call the functions (use the symbols) that those layers' objects define; anything else is an upward
# dependency.  The core includes nothing of src/ outside src/core (the backends, the frontends) and never
# internal.h, the umbrella header for the code above the core; its objects use no symbol that code defines,
# except the backends' descriptions (pa__backend_NAME), which the list (the backends layer) names.  Nothing in
# src/ or tests/ but backends.c tests a build option with #if PA_HAVE_*.
#
# Includes are read from the sources (#include "..." lines, resolved by the header's name).  Calls are read
# with nm from BUILD_DIR's objects (default: build under the root) when they are there; without them only the
# includes are checked, and the script says so.  Prints one line per breach, naming the file, the include or
# symbol and the two layers, and exits 1 when there is any; 0 when the layering holds.
set -euo pipefail
export LC_ALL=C

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "${1:-}" = "--root" ]; then
    root=$(cd "$2" && pwd)
    shift 2
fi
builddir=${1:-$root/build}
core=$root/src/core

layer_line=$(grep -E "^core_layers = \[" "$root/meson.build" || true)
if [ -z "$layer_line" ]; then
    echo "check-layers: no core_layers = [...] line in $root/meson.build" >&2
    exit 2
fi
read -r -a layers <<<"$(sed -E "s/^core_layers = \[//; s/\].*//; s/[',]/ /g" <<<"$layer_line")"

declare -A rank=()
for i in "${!layers[@]}"; do
    rank[${layers[$i]}]=$i
    if [ ! -d "$core/${layers[$i]}" ]; then
        echo "check-layers: meson.build lists layer '${layers[$i]}' but src/core/${layers[$i]}/ does not exist" >&2
        exit 2
    fi
done

breaches=0
breach() {
    echo "check-layers: $*"
    breaches=$((breaches + 1))
}

# Every folder of src/core is a layer; every file of the core is in one.
for d in "$core"/*/; do
    d=${d%/}
    [ -n "${rank[${d##*/}]+x}" ] || breach "src/core/${d##*/}/ is not a layer: add it to core_layers in meson.build"
done
for f in "$core"/*.c "$core"/*.h; do
    [ -e "$f" ] || continue
    [ "${f##*/}" = "internal.h" ] && continue
    breach "src/core/${f##*/} is in no layer: move it into the folder of its layer"
done

# Headers by name: the core's to their layer, the rest of src/ to what is above the core.
declare -A hlayer=()
while IFS= read -r h; do
    rel=${h#"$root"/}
    name=${h##*/}
    case $rel in
        src/core/internal.h) hlayer[$name]="$rel" ;;
        src/core/*/*)
            l=$(cut -d/ -f3 <<<"$rel")
            if [ -n "${hlayer[$name]+x}" ] && [ -n "${rank[${hlayer[$name]}]+x}" ]; then
                breach "$rel: another header of the core is called $name (in ${hlayer[$name]}/):" \
                    "an include by name could mean either"
            fi
            hlayer[$name]=$l
            ;;
        *) [ -n "${hlayer[$name]+x}" ] || hlayer[$name]="$rel" ;;
    esac
done < <(find "$root/src" -name '*.h' -o -name '*.cuh' | sort)

# Includes.
for l in "${layers[@]}"; do
    r=${rank[$l]}
    while IFS= read -r f; do
        rel=${f#"$root"/}
        while IFS=: read -r line inc; do
            name=${inc##*/}
            [[ $inc == parray/* ]] && continue          # the public headers
            [ -n "${hlayer[$name]+x}" ] || continue     # generated or system headers
            to=${hlayer[$name]}
            if [ -z "${rank[$to]+x}" ]; then
                breach "$rel:$line includes \"$inc\": layer $l includes $to, which is above the core"
            elif [ "${rank[$to]}" -gt "$r" ]; then
                breach "$rel:$line includes \"$inc\": layer $l includes from layer $to, above it"
            fi
        done < <(sed -n -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$f" |
                 grep -n '' || true)
    done < <(find "$core/$l" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort)
done

# Calls: the symbols the core's objects use against the objects that define them.
objdir=
if [ -d "$builddir" ]; then
    objdir=$(find "$builddir" -maxdepth 2 -type f -name 'src_core_*.o' -printf '%h\n' 2>/dev/null | sort | head -n 1)
fi
if [ -z "$objdir" ]; then
    echo "check-layers: no objects of the core under $builddir (not built yet): includes checked, calls not"
else
    # "symbol object" for every global symbol defined in the library's objects.
    defs=$(mktemp)
    trap 'rm -f "$defs"' EXIT
    for o in "$objdir"/*.o; do
        nm --defined-only -g "$o" 2>/dev/null | awk -v o="${o##*/}" 'NF == 3 { print $3, o }'
    done | sort -k1,1 >"$defs"
    for o in "$objdir"/src_core_*.o; do
        obj=${o##*/}
        rest=${obj#src_core_}
        from=${rest%%_*}
        src="src/core/$from/${rest#*_}"
        src=${src%.o}
        [ -f "$root/$src" ] || continue   # a stale object of a file moved or removed since
        if [ -z "${rank[$from]+x}" ]; then
            breach "$src: an object of the core in no layer ($from)"
            continue
        fi
        while read -r sym def; do
            [ "$def" = "$obj" ] && continue
            case $def in
                src_core_*)
                    d=${def#src_core_}
                    to=${d%%_*}
                    if [ -z "${rank[$to]+x}" ] || [ "${rank[$to]}" -gt "${rank[$from]}" ]; then
                        breach "$src uses $sym of src/core/$to/${d#*_}: layer $from calls layer $to, above it"
                    fi
                    ;;
                *)
                    if [ "$from" = "backends" ] && [[ $sym =~ ^pa__backend_[a-z0-9]+$ ]]; then
                        continue   # the list names the backends' descriptions, and nothing else of theirs
                    fi
                    breach "$src uses $sym of the object $def: layer $from calls code above the core"
                    ;;
            esac
        done < <(nm --undefined-only "$o" 2>/dev/null | awk 'NF >= 2 { print $NF }' | sort -u | join - "$defs")
    done
fi

# Build options: only the backends' list asks the configuration (#if PA_HAVE_*); the rest of src/ (a backend
# takes its optional parts as files that meson chooses) and the tests ask the library at run time.
while IFS=: read -r f line _; do
    rel=${f#"$root"/}
    [ "$rel" = "src/core/backends/backends.c" ] && continue
    breach "$rel:$line tests a build option (#if PA_HAVE_*): only src/core/backends/backends.c may"
done < <(grep -rnE --include='*.c' --include='*.h' --include='*.cu' '^[[:space:]]*#[[:space:]]*(if|ifdef|ifndef|elif)\b.*PA_HAVE_' \
    "$root/src" "$root/tests" 2>/dev/null || true)

if [ "$breaches" -gt 0 ]; then
    echo "check-layers: $breaches breaches of the layering (layers, bottom first: ${layers[*]})" >&2
    exit 1
fi
echo "check-layers: the core's layers import only downward (${layers[*]})"
