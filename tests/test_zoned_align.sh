#!/usr/bin/env bash
# Regression for issue 26: random_distribution=zoned with direct=1 issued
# offsets that were not block-aligned (2174156 in fio's rand-zones.fio)
# and failed with EINVAL: the zones' bounds were percentages of the
# region in bytes.  fio counts zones in blocks (of blockalign), so every
# offset is a multiple of the block size; here every logged offset must
# be, for zoned and zoned_abs, read and write, with bs and blockalign.
. "$(dirname "$0")/lib.sh"

# run NAME DIST EXTRA...: a null job (any offset is accepted) logging offsets
run() {
	local name=$1 dist=$2 align=$3
	shift 3
	{
		echo "[$name]"
		echo "ioengine=null"
		echo "size=$((64 * 1024 * 1024 + 12345))"
		echo "rw=randrw"
		echo "norandommap"
		echo "random_distribution=$dist"
		echo "io_size=4m"
		echo "write_iops_log=$TMP/$name"
		echo "log_offset=1"
		echo "per_job_logs=0"
		printf '%s\n' "$@"
	} >"$TMP/$name.fio"
	"$RQLOCK" run "$TMP/$name.fio" >/dev/null 2>"$TMP/$name.err"
	local rc=$?
	[ $rc -eq 0 ] || { cat "$TMP/$name.err" >&2; fail "$name: exit $rc"; }
	bad=$(awk -F', ' -v a="$align" '$5 % a != 0' "$TMP/${name}_iops.log" | wc -l)
	[ "$bad" = 0 ] || fail "$name: $bad offsets not multiples of $align: $(awk -F', ' -v a="$align" '$5 % a != 0 { print $5; exit }' "$TMP/${name}_iops.log")"
	[ -s "$TMP/${name}_iops.log" ] || fail "$name: nothing logged"
}

run pct 'zoned:50/5:30/15:20/' 4096 bs=4k
run pct_rw 'zoned:50/5:30/15:20/,50/10:50/90' 8192 bs=8k
run abs 'zoned_abs:50/1000001:30/7777777:20/30m' 4096 bs=4k
run ba 'zoned:60/33:40/' 16384 bs=4k blockalign=16k

# and what the issue saw: direct I/O on a file, no EINVAL
cat >"$TMP/direct.fio" <<JOB
[direct]
filename=$TMP/z.img
size=16m
direct=1
bs=4k
rw=randread
norandommap
random_distribution=zoned:50/5:30/15:20/
io_size=2m
JOB
"$RQLOCK" run "$TMP/direct.fio" >/dev/null 2>"$TMP/direct.err"
rc=$?
if [ $rc -ne 0 ]; then
	grep -q "Invalid argument" "$TMP/direct.err" && fail "direct=1: $(grep -m1 'Invalid argument' "$TMP/direct.err")"
	fail "direct=1: exit $rc: $(head -2 "$TMP/direct.err")"
fi
echo "PASS"
