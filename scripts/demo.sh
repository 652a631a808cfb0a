#!/usr/bin/env bash
# Installs what is missing, builds parray and runs the demo (build/examples/demo).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$here/setup-debian.sh"
"$here/build.sh" build
exec "$here/../build/examples/demo" "$@"
