#!/usr/bin/env bash
# Installs a built tree into a temporary directory and uses it as a new user would: builds and runs
# examples/readme_example.c with `pkg-config --cflags --libs parray` only, starts the installed bin/parray from
# that non-system prefix, checks parray.pc (each flag once, no library by absolute path) and the SONAME, and
# renders the installed manual page parray(1) with man.
#
#     scripts/check-install.sh [BUILD_DIR]        (default: build; it must be configured and built)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir=${1:-build}
case $builddir in /*) ;; *) builddir=$root/$builddir ;; esac
stage=$(mktemp -d "${TMPDIR:-/tmp}/parray-install.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# DESTDIR keeps the configured prefix inside the files (parray.pc says prefix=/usr/local, say); pkg-config's
# sysroot puts the staging directory in front of its -I and -L paths.
meson install -C "$builddir" --no-rebuild --quiet --destdir "$stage"
pcdir=$(dirname "$(find "$stage" -name parray.pc -print -quit)")
export PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$stage
libdir=$(pkg-config --variable=libdir parray)   # the sysroot is already in front

echo "check-install: parray.pc"
sed 's/^/    /' "$pcdir/parray.pc"
# parray.pc's own flags (pkg-config --static would add those of the packages it requires, which may repeat).
libs=$(sed -n 's/^Libs\(\.private\)*: //p' "$pcdir/parray.pc" | tr '\n' ' ')
if grep -Eq '(^| )/[^ ]*\.a( |$)' <<<"$libs"; then
    echo "check-install: parray.pc lists a static library by absolute path: $libs" >&2
    exit 1
fi
dups=$(tr ' ' '\n' <<<"$libs" | grep -v '^$' | sort | uniq -d)
if [ -n "$dups" ]; then
    echo "check-install: parray.pc repeats flags: $dups" >&2
    exit 1
fi

echo "check-install: SONAME"
soname=$(readelf -d "$libdir/libparray.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
version=$(sed -n "s/^ *version: '\([0-9.]*\)'.*/\1/p" "$root/meson.build" | head -n 1)
if [ "$soname" != "libparray.so.${version%%.*}" ] || [ ! -e "$libdir/libparray.so.$version" ]; then
    echo "check-install: SONAME '$soname', expected libparray.so.${version%%.*} -> libparray.so.$version" >&2
    exit 1
fi
echo "    $soname -> $(readlink -f "$libdir/libparray.so" | xargs basename)"

echo "check-install: examples/readme_example.c with pkg-config --cflags --libs parray"
# shellcheck disable=SC2046  # pkg-config's flags are meant to be split
cc -o "$stage/readme_example" "$root/examples/readme_example.c" $(pkg-config --cflags --libs parray)
out=$(LD_LIBRARY_PATH=$libdir "$stage/readme_example")
want=$'0 3 6\n1 4 7\n2 5 8'
if [ "$out" != "$want" ]; then
    printf 'check-install: readme_example printed\n%s\nexpected\n%s\n' "$out" "$want" >&2
    exit 1
fi
echo "    ran: $(tr '\n' '|' <<<"$out")"

echo "check-install: code written for parray.h alone, with a module and an old name (docs/api.md, the API's style)"
# For one release parray.h still gives the optional modules and the renamed calls keep their old names: such code
# compiles, warned of each old name with its replacement; with PA_CORE_ONLY (the next release's parray.h) it does
# not, and the compiler names what is missing.
cat >"$stage/old_style.c" <<'EOF_C'
#include <parray/parray.h>
int main(void)
{
    pa_matrix *m = NULL;
    int st = pa_matrix_create_in(NULL, PA_MATRIX_FLOAT, 2, 3, &m);
    int rows = st == PA_OK ? pa_matrix_height(m) : -1;
    pa_matrix_destroy(m);
    pa_clear_error();
    return rows == 2 ? 0 : 1;
}
EOF_C
# shellcheck disable=SC2046  # pkg-config's flags are meant to be split
if ! warned=$(cc -o "$stage/old_style" "$stage/old_style.c" $(pkg-config --cflags --libs parray) 2>&1); then
    printf 'check-install: code that includes only parray.h no longer compiles:\n%s\n' "$warned" >&2
    exit 1
fi
for want in "use pa_matrix_nrows" "use pa_error_clear"; do
    if ! grep -q "$want" <<<"$warned"; then
        printf 'check-install: no deprecation warning saying "%s":\n%s\n' "$want" "$warned" >&2
        exit 1
    fi
done
if ! LD_LIBRARY_PATH=$libdir "$stage/old_style"; then
    echo "check-install: the old names did not run as before" >&2
    exit 1
fi
# shellcheck disable=SC2046
if core=$(cc -DPA_CORE_ONLY -c -o "$stage/old_style.o" "$stage/old_style.c" $(pkg-config --cflags parray) 2>&1) ||
        ! grep -q "pa_matrix" <<<"$core"; then
    printf 'check-install: with PA_CORE_ONLY parray.h still gave matrix.h, or the error does not name it:\n%s\n' \
        "$core" >&2
    exit 1
fi
echo "    compiles with $(grep -c 'deprecated' <<<"$warned") deprecation warnings and runs; with PA_CORE_ONLY: $(grep -m1 -o "error: .*pa_matrix[^ ]*" <<<"$core")"

echo "check-install: the installed bin/parray, from this prefix (RUNPATH)"
cli=$(find "$stage" -path '*/bin/parray' -print -quit)
got=$(env -u LD_LIBRARY_PATH "$cli" --version)
if [ "$got" != "parray $version (headers $version)" ]; then
    echo "check-install: bin/parray --version printed '$got'" >&2
    exit 1
fi
echo "    $got"
echo "check-install: the manual page parray(1), rendered by man from the installed file"
page=$(find "$stage" -path '*/man1/parray.1' -print -quit)
if [ -z "$page" ]; then
    echo "check-install: no man1/parray.1 was installed" >&2
    exit 1
fi
rendered=$(MANWIDTH=80 man -l "$page" 2>&1)
if ! grep -q '^NAME' <<<"$rendered" || ! grep -q "parray $version" <<<"$rendered"; then
    printf 'check-install: man -l %s rendered\n%s\n' "$page" "$rendered" >&2
    exit 1
fi
echo "    ${page#"$stage"}: $(grep -c . <<<"$rendered") lines, $(sed -n '2,/^$/p' <<<"$rendered" | head -n 4 | grep -m1 -A1 NAME | tail -n 1 | sed 's/^ *//')"
echo "check-install: passed"
