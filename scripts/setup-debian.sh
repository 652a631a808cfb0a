#!/usr/bin/env bash
# Installs what building and testing parray needs on Debian (bookworm or later) and Ubuntu.
#
# Idempotent: each package is checked with dpkg first, and apt-get runs (one update, one install) only when
# something is missing.  Works as root (as CI runs it) and through sudo otherwise.  Open MPI is installed for the
# MPI backend and its suites; CUDA is not installed here, and meson turns it off when it is absent.
set -euo pipefail

packages=(
    build-essential     # gcc, make, libc headers
    meson
    ninja-build
    pkg-config
    check               # the unit-test framework of tests/
    libsubunit-dev      # Check's pkg-config file asks for it
    libnuma-dev         # the numa memory type
    libhwloc-dev        # topology and thread binding
    clang               # the fuzz targets
    libclang-rt-14-dev  # libFuzzer's runtime for clang 14
    libopenmpi-dev      # the MPI backend (mpimem, distributed copies, process arrays)
    openmpi-bin         # mpirun, which runs the MPI suites
    libglobalarrays-dev # the gamem memory type (Global Arrays, static libraries only)
    libarmci-mpi-dev    # ARMCI over MPI, which Global Arrays runs on
    libscalapack-openmpi-dev  # ScaLAPACK, which libga's objects reference
    liblapack-dev       # LAPACK and BLAS, which libga and ScaLAPACK reference
    libblas-dev
    gfortran            # libgfortran, which libga's Fortran objects reference
    libdlpack-dev       # DLPack's header (include/parray/dlpack.h: export and import of arrays)
    python3-numpy       # the DLPack round trip through NumPy (tests/python/dlpack_numpy.py)
    cmake               # the CMake consumer of an installed parray (scripts/check-cmake.sh)
    man-db              # man -l renders parray(1) after install (scripts/check-install.sh)
    groff               # groff -man checks parray(1) (meson test cli_man)
    python3-venv        # the Python package's build and tests in a virtual environment (scripts/check-python.sh)
)

missing=()
for pkg in "${packages[@]}"; do
    # dpkg -s also succeeds for a removed package whose configuration files are kept, so read its status line
    # (from its whole output: grep -q in a pipe stops reading early, and pipefail would count dpkg's SIGPIPE).
    if ! grep -q '^Status: install ok installed' <<<"$(dpkg -s "$pkg" 2>/dev/null || true)"; then
        missing+=("$pkg")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup-debian: every package is installed"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "setup-debian: missing ${missing[*]}; run this script as root or install sudo" >&2
    exit 1
fi

echo "setup-debian: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update
"${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
