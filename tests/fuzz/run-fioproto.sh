#!/usr/bin/env bash
# tests/fuzz/run-fioproto.sh [SRCDIR]: build rqlock server's packet parser
# (server/fio_proto.c, alone) as a libFuzzer target with clang and run it for
# FUZZ_SECONDS (default 45), or FUZZ_RUNS executions when set, over
# tests/fuzz/corpus-fioproto (streams a fio 3.33 client sends), with ASan and
# UBSan.  Findings kept as regression cases live in that corpus too.
# Exit 0: no finding; 1: a finding (reproducer kept, path printed);
# 77: clang's libFuzzer is not there.
set -u
src=${1:-${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}}
secs=${FUZZ_SECONDS:-45}
cc=${FUZZ_CC:-clang}
skip() { echo "SKIP: $*"; exit 77; }
command -v "$cc" >/dev/null || skip "$cc is not installed"
work=$(mktemp -d "${TMPDIR:-/tmp}/rq-fuzz.XXXXXX")
keep=false
trap '$keep || rm -rf "$work"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$work/probe.c"
"$cc" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" >/dev/null 2>&1 \
	|| skip "$cc cannot build with -fsanitize=fuzzer (libFuzzer missing)"
"$cc" -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$src" "$src/tests/fuzz/fuzz_fioproto.c" "$src/server/fio_proto.c" -o "$work/fuzz_fioproto" \
	2>"$work/build.log" || { cat "$work/build.log"; echo "FAIL: cannot build the fuzz target"; exit 1; }
mkdir "$work/corpus"
cp "$src"/tests/fuzz/corpus-fioproto/* "$work/corpus/"
cd "$work" || exit 1
if [ -n "${FUZZ_RUNS:-}" ]; then
	limit="-runs=$FUZZ_RUNS"
else
	limit="-max_total_time=$secs"
fi
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$work/fuzz_fioproto" "$limit" -max_len=16384 \
	-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" \
	>"$work/log" 2>&1
rc=$?
tail -n 8 "$work/log"
if [ $rc -ne 0 ] || ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
	keep=true
	echo "FAIL: the fuzzer found a problem; reproducer(s) and log in $work"
	exit 1
fi
if [ -n "${FUZZ_RUNS:-}" ]; then
	echo "fuzz_fioproto: $FUZZ_RUNS runs, no finding"
else
	echo "fuzz_fioproto: $secs s, no finding"
fi
