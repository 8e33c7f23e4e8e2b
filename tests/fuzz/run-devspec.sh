#!/usr/bin/env bash
# tests/fuzz/run-devspec.sh [SRCDIR]: build the device-spec libFuzzer target
# (tests/fuzz/fuzz_devspec.c, with every library source) with clang and
# run it for FUZZ_SECONDS (default 45) over tests/fuzz/corpus-devspec, with
# ASan and UBSan.  Exit 0: no finding; 1: a finding (reproducer kept);
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
srcs=$(ls "$src"/lib/*.c "$src"/jobfile/*.c "$src"/engine/*.c "$src"/locks/*.c "$src"/queues/*.c "$src"/devices/*.c "$src"/results/*.c)
# one object per source, compiled in parallel: serially this alone took most
# of the test's time on a shared two-core machine
flags="-std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
mkdir "$work/obj"
# shellcheck disable=SC2086
printf '%s\n' "$src/tests/fuzz/fuzz_devspec.c" $srcs | \
	xargs -P "$(nproc)" -I{} sh -c '"$1" $2 -I"$3" $(pkg-config --cflags liburing) -c "$4" -o "$5/obj/$(echo "$4" | tr / _).o"' \
		sh "$cc" "$flags" "$src" {} "$work" 2>"$work/build.log" \
	&& "$cc" -fsanitize=fuzzer,address,undefined "$work"/obj/*.o $(pkg-config --libs liburing) -laio -lz -lpthread -lm \
		-o "$work/fuzz_devspec" 2>>"$work/build.log" \
	|| { cat "$work/build.log"; echo "FAIL: cannot build the fuzz target"; exit 1; }
mkdir "$work/corpus"
cp "$src"/tests/fuzz/corpus-devspec/* "$work/corpus/"
cd "$work" || exit 1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$work/fuzz_devspec" -max_total_time="$secs" -max_len=512 \
	-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" \
	>"$work/log" 2>&1
rc=$?
tail -n 8 "$work/log"
if [ $rc -ne 0 ] || ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
	keep=true
	echo "FAIL: the fuzzer found a problem; reproducer(s) and log in $work"
	exit 1
fi
echo "fuzz_devspec: $secs s, no finding"
