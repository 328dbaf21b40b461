#!/bin/sh
# On demand: the records and definitions readers of `waitscope recover` under random damage
# for SECONDS (default 600), built with AddressSanitizer and UBSan apart from the build tree.
# Usage: tests/measurement/fuzz_records.sh [SECONDS] [SEED]
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${TMPDIR:-/tmp}/waitscope_records_fuzz_asan
g++ -std=c++20 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
    -I"$root/measurement/recover" -I"$root/measurement/runtime/include" \
    -I"$root/base/include" \
    "$root/tests/measurement/records_fuzz.cpp" "$root/measurement/recover/records_file.cpp" \
    "$root/measurement/runtime/rank_definitions_file.cpp" \
    "$root/measurement/runtime/definitions.cpp" -o "$out"
exec timeout --signal=KILL $((${1:-600} + 60)) "$out" "${1:-600}" "${2:-1}"
