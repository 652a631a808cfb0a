#!/usr/bin/env bash
# Configures (once) and builds parray with meson.
#
#     scripts/build.sh [BUILD_DIR [MESON_SETUP_OPTIONS...]]
#
# BUILD_DIR defaults to "build" in the repository root.  A directory that is already configured is reused as it
# is (meson reconfigures by itself when a meson.build changes); the options only apply when it is first set up.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
builddir=${1:-build}
if [ $# -gt 0 ]; then shift; fi

if [ -f "$builddir/build.ninja" ]; then
    echo "build: reusing $builddir"
elif [ -d "$builddir/meson-private" ]; then
    # A setup that was interrupted leaves meson-private without build.ninja; start it again from scratch.
    meson setup --wipe "$builddir" "$@"
else
    meson setup "$builddir" "$@"
fi
meson compile -C "$builddir"
