#!/usr/bin/env bash
# Uses an installed parray from CMake as a CMake project would (tests/consumers/cmake: find_package(parray) and
# its imported targets only), and checks that the package is relocatable and refuses what it does not have:
#
#   1. installs the build under DESTDIR into a temporary directory, configures the consumer with
#      CMAKE_PREFIX_PATH=<that prefix>, builds it and runs it (parray::parray; parray::gamem where built);
#   2. moves the prefix elsewhere, deletes the first, and configures, builds and runs again from the new place;
#   3. find_package with a component this parray has not (a made-up one, and gamem as a build without Global
#      Arrays writes it) and with a version it does not satisfy must each fail, with a message saying why.
#
#     scripts/check-cmake.sh [BUILD_DIR]        (default: build; it must be configured and built)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir=${1:-build}
case $builddir in /*) ;; *) builddir=$root/$builddir ;; esac
if ! command -v cmake >/dev/null 2>&1; then
    echo "check-cmake: cmake is not installed (scripts/setup-debian.sh installs it)" >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/parray-cmake.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$root/tests/consumers/cmake
want=$'0 3 6\n1 4 7\n2 5 8'

meson install -C "$builddir" --no-rebuild --quiet --destdir "$work/stage"
config=$(find "$work/stage" -name parrayConfig.cmake -print -quit)
prefix=$(cd "$(dirname "$config")" && cd ../../.. && pwd)
# libdir may have one part (lib) or two (lib/x86_64-linux-gnu): the prefix is what holds include/parray.
while [ ! -d "$prefix/include/parray" ] && [ "$prefix" != / ]; do prefix=$(dirname "$prefix"); done
echo "check-cmake: $(cmake --version | head -n 1); installed into $prefix (DESTDIR)"
echo "    ${config#"$prefix"/}"

# Configures, builds and runs the consumer against the prefix $1 in the build directory $2.
consume() {
    cmake -S "$src" -B "$2" -DCMAKE_PREFIX_PATH="$1" -DWANT_VERSION=0.1 >"$2.log" 2>&1 ||
        { cat "$2.log" >&2; echo "check-cmake: configuring the consumer failed" >&2; exit 1; }
    grep -- '-- parray ' "$2.log" | sed 's/^/    /'
    cmake --build "$2" >>"$2.log" 2>&1 || { cat "$2.log" >&2; echo "check-cmake: building failed" >&2; exit 1; }
    local exe out
    for exe in "$2"/consumer "$2"/consumer_gamem; do
        [ -x "$exe" ] || continue
        out=$(env -u LD_LIBRARY_PATH "$exe") || { echo "check-cmake: $exe failed" >&2; exit 1; }
        if [ "$out" != "$want" ]; then
            printf 'check-cmake: %s printed\n%s\nexpected\n%s\n' "$exe" "$out" "$want" >&2
            exit 1
        fi
        # The shared library must come from this prefix (the imported target's RPATH), not from elsewhere.  ldd's
        # whole output is read first: grep -q in a pipe stops reading at its match, and under pipefail ldd's
        # SIGPIPE would then fail the test at random.
        if [ "${exe##*/}" = consumer ]; then
            local libs
            libs=$(ldd "$exe")
            if ! grep -q "$1/.*libparray.so" <<<"$libs"; then
                echo "check-cmake: $exe does not load libparray.so from $1:" >&2
                echo "$libs" >&2
                exit 1
            fi
        fi
        echo "    ran ${exe##*/}: $(tr '\n' '|' <<<"$out")"
    done
}

echo "check-cmake: the consumer against the DESTDIR install"
consume "$prefix" "$work/b1"

echo "check-cmake: the same prefix moved elsewhere"
moved=$work/moved/somewhere/else
mkdir -p "$(dirname "$moved")"
mv "$prefix" "$moved"
rm -rf "$work/stage"
consume "$moved" "$work/b2"

# Must fail at configure time with a message containing $2.
refuse() {
    if cmake -S "$src" -B "$work/bad" -DCMAKE_PREFIX_PATH="$moved" "$1" >"$work/bad.log" 2>&1; then
        echo "check-cmake: find_package with $1 succeeded; it should have failed" >&2
        exit 1
    fi
    # CMake wraps the package's message over lines: read the log as one line.
    local said
    said=$(tr -s ' \n' '  ' <"$work/bad.log")
    if ! grep -q "$2" <<<"$said"; then
        cat "$work/bad.log" >&2
        echo "check-cmake: find_package with $1 failed without saying '$2'" >&2
        exit 1
    fi
    echo "    refused $1, saying: $2"
    rm -rf "$work/bad"
}
echo "check-cmake: what this parray has not"
refuse -DWANT_COMPONENT=nosuch "component 'nosuch' is not in the parray"
refuse -DWANT_VERSION=9.0 "version: 0.1.0"
# gamem: a build without Global Arrays writes parray_HAVE_GAMEM FALSE and nothing else differs in the file, so
# where this build has it the line is turned off in the moved copy to see the refusal.
moved_config=$(find "$moved" -name parrayConfig.cmake -print -quit)
sed -i 's/^set(parray_HAVE_GAMEM TRUE)$/set(parray_HAVE_GAMEM FALSE)/' "$moved_config"
grep -q '^set(parray_HAVE_GAMEM FALSE)$' "$moved_config"
refuse -DWANT_COMPONENT=gamem "component 'gamem' is not in the parray at .*: this parray was built without Global Arrays"
echo "check-cmake: passed"
