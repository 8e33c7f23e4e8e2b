#!/usr/bin/env bash
# tests/fuzz/run.sh [SRCDIR]: build the job-file parser's libFuzzer target
# with clang and run it for FUZZ_SECONDS (default 45) over a corpus seeded
# from jobs/*.fio, tests/fio-corpus and tests/fuzz/corpus, with ASan and
# UBSan.  New inputs go to a scratch copy, not the source tree.
# Exit 0: no finding; 1: a crash, leak or timeout (the reproducer is kept
# and its path printed); 77: clang with -fsanitize=fuzzer is not there.
set -u
src=${1:-${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}}
secs=${FUZZ_SECONDS:-45}
cc=${FUZZ_CC:-clang}
skip() { echo "SKIP: $*"; exit 77; }
command -v "$cc" >/dev/null || skip "$cc is not installed"
# mktemp wants its template to end in six capital X
work=$(mktemp -d "${TMPDIR:-/tmp}/rq-fuzz.$(printf 'X%.0s' 1 2 3 4 5 6)")
keep=false
trap '$keep || rm -rf "$work"' EXIT

printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\n'`
      `'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	>"$work/probe.c"
"$cc" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" >/dev/null 2>&1 \
	|| skip "$cc cannot build with -fsanitize=fuzzer (libFuzzer missing)"
"$cc" -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$src" "$src/tests/fuzz/fuzz_jobfile.c" "$src"/jobfile/*.c -lm -o "$work/fuzz_jobfile" \
	|| { echo "FAIL: cannot build the fuzz target"; exit 1; }

mkdir "$work/corpus" "$work/run"
for f in "$src"/jobs/*.fio "$src"/tests/fio-corpus/* "$src"/tests/fuzz/corpus/*; do
	[ -f "$f" ] && cp "$f" "$work/corpus/$(basename "$(dirname "$f")")-$(basename "$f")"
done
# relative includes in inputs resolve in an empty scratch directory
cd "$work/run" || exit 1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$work/fuzz_jobfile" -max_total_time="$secs" -max_len=4096 \
	-timeout=10 -rss_limit_mb=2048 -dict="$src/tests/fuzz/jobfile.dict" \
	-artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" >"$work/log" 2>&1
rc=$?
tail -n 15 "$work/log"
if [ $rc -ne 0 ] || ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
	keep=true
	echo "FAIL: the fuzzer found a problem; reproducer(s) and log in $work"
	exit 1
fi
echo "fuzz_jobfile: $secs s, no finding"
