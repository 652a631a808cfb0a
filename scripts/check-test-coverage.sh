#!/usr/bin/env bash
# Every public call and device helper is run by at least one test (issue 15): each function a public header
# exports (PA_API), each device function and function-like macro of the device headers (include/parray/device.h,
# include/parray/plcuda/*.h, include/parray/query/block.h) whose name does not start with pa__ (internal), must
# appear in a test source under tests/ (a test that calls it, or a kernel source a test compiles and runs).
# Device helpers that tests reach only through another helper are listed below with that helper.
#
#     scripts/check-test-coverage.sh        exit 1 and the names when one is missing
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# name: the public helper through which the tests run it (checked to appear in tests/ in its turn).
reached_through=(
    "pa_qb_hash:pa_qb_build"
    "pa_qb_lookup:pa_qb_probe"
    "pa_qb_build_open:pa_qb_build"
    "pa_qb_build_perfect:pa_qb_build"
    "pa_qb_block_sum:pa_qb_sum"
    "pa_dp_blocks:pa_dp_launch"
)

# A deprecated alias (PA_DEPRECATED("use ...") before its return type) counts too: the alias test calls it.
api=$(grep -h 'PA_API' include/parray/*.h | sed -E 's/PA_DEPRECATED\("[^"]*"\) *//' | grep -o 'PA_API[^(]*(' |
    sed -E 's/\($//; s/.*[ *]//' | sort -u)
device=$( (grep -hoE '__device__[^(;=]*[ *]pa_[a-z0-9_]+ *\(' include/parray/device.h include/parray/plcuda/*.h \
    include/parray/query/block.h || true; grep -hoE '^#define pa_[a-z0-9_]+\(' include/parray/plcuda/*.h \
    include/parray/device.h include/parray/query/block.h || true) | sed -E 's/ *\($//; s/.*[ *]//; s/^#define //' |
    grep -v '^pa__' | sort -u)

missing=0
checked=0
for name in $api $device; do
    checked=$((checked + 1))
    if grep -rqw -- "$name" tests/; then
        continue
    fi
    via=""
    for r in "${reached_through[@]}"; do
        if [ "${r%%:*}" = "$name" ]; then
            via=${r#*:}
        fi
    done
    if [ -n "$via" ] && grep -rqw -- "$via" tests/ && grep -rqw -- "$name" include/parray/; then
        continue
    fi
    echo "not run by any test: $name"
    missing=$((missing + 1))
done
echo "check-test-coverage: $checked public calls and device helpers, $missing not run by a test"
[ "$missing" -eq 0 ]
