#!/usr/bin/env bash
# Regression for issue 26 (wrong coverage): random_generator=lfsr was
# ignored with a note that rqlock's generator "hits every block once a
# pass as lfsr does", but with norandommap=1 a 256-block job touched 166
# of them (fio's t0021).  With lfsr, every block once a pass, map or no
# map, a region that is not a power of two of blocks too; the order is
# not sequential; a second pass covers every block once more.
. "$(dirname "$0")/lib.sh"

# run NAME SIZE LOOPS EXTRA...: a null job logging its offsets
run() {
	local name=$1 size=$2 loops=$3
	shift 3
	{
		echo "[$name]"
		echo "ioengine=null"
		echo "filesize=$size"
		echo "bs=4k"
		echo "rw=randread"
		echo "loops=$loops"
		echo "write_iops_log=$TMP/$name"
		echo "per_job_logs=0"
		echo "log_offset=1"
		echo "random_generator=lfsr"
		printf '%s\n' "$@"
	} >"$TMP/$name.fio"
	"$RQLOCK" run "$TMP/$name.fio" >/dev/null 2>"$TMP/$name.err" ||
		{ cat "$TMP/$name.err" >&2; fail "$name: exit $?"; }
	grep -q "random_generator" "$TMP/$name.err" && fail "$name: $(cat "$TMP/$name.err")"
	python3 - "$TMP/${name}_iops.log" "$((size / 4096))" "$loops" "$name" <<'PY' || exit 1
import sys
log, n, loops, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
offs = [int(l.split(',')[4]) // 4096 for l in open(log) if l.strip()]
if len(offs) != n * loops:
    sys.exit(f"FAIL: {name}: {len(offs)} I/Os, expected {n * loops}")
for p in range(loops):
    got = offs[p * n:(p + 1) * n]
    if sorted(got) != list(range(n)):
        sys.exit(f"FAIL: {name}: pass {p + 1} touched {len(set(got))} of {n} blocks")
seq = sum(1 for a, b in zip(offs, offs[1:]) if b == a + 1)
if seq > n // 8:
    sys.exit(f"FAIL: {name}: {seq} of {len(offs)} offsets follow the one before")
PY
}

run t0021 1M 1 norandommap=1	# fio's t0021
run map 1M 1			# with the random map
run odd $((1000 * 4096)) 2 norandommap=1
echo "PASS"
