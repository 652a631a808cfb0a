#!/usr/bin/env bash
# Installs what is missing, builds parray and runs every test suite; exits non-zero when a test fails.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$here/setup-debian.sh"
"$here/build.sh" build
meson test -C "$here/../build" --print-errorlogs "$@"
