#!/usr/bin/env bash
# Builds and tests the Python package as a new user would: a fresh virtual environment, `pip install ./python`
# (meson-python builds the library from this checkout, with the backends the machine has), then the package's
# pytest suites on the CPU (NumPy; the GPU tests skip without a GPU) from outside the source tree, and prints
# the overhead of a small copy against NumPy's (python/tests/bench_overhead.py; printed, not judged: CI's
# timings are noisy).
#
#     scripts/check-python.sh            (PYTHON: the interpreter, default python3; needs PyPI)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/parray-python.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$python" -m venv "$work/venv"
py=$work/venv/bin/python
"$py" -m pip install --quiet --disable-pip-version-check numpy pytest
echo "check-python: $("$py" --version), numpy $("$py" -c 'import numpy; print(numpy.__version__)')"
started=$SECONDS
"$py" -m pip install --quiet --disable-pip-version-check "$root/python"
echo "check-python: pip install ./python took $((SECONDS - started)) s"
# From elsewhere, so that the installed package is imported and not python/parray of the checkout.
cd "$work"
"$py" -m parray | sed 's/^/    /'
"$py" -m pytest -q -rs -p no:cacheprovider "$root/python/tests"
"$py" "$root/python/tests/bench_overhead.py" | sed 's/^/    /'
echo "check-python: passed"
