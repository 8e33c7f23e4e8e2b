#!/usr/bin/env bash
# Trims end to end (issue 26, item 5): rw=trim|randtrim|trimwrite|randtrimwrite.
#  - a trim of a regular file punches a hole: st_blocks drop by the range,
#    the range reads zeros, the bytes around it are kept (io_uring and libaio);
#  - trimwrite/randtrimwrite under every lock mode: as many bytes trimmed as
#    written, exactly once, in the JSON's "trim" section;
#  - the normal output and the logs carry the trims (ddir 2), each write
#    after the trim of its blocks;
#  - --readonly refuses a trim, a device with no discard (the 2.4 floppy
#    model) refuses a trimming job: exit 2, one line, nothing written.
. "$(dirname "$0")/lib.sh"

# ---- a file: the hole and its zeros ----
if command -v fallocate >/dev/null && head -c 8192 /dev/urandom >"$TMP/probe" &&
   fallocate -p -o 0 -l 4096 "$TMP/probe" 2>/dev/null; then
	for eng in io_uring libaio; do
		f=$TMP/f-$eng.dat
		head -c $((2 << 20)) /dev/urandom >"$f"
		sync "$f"
		b0=$(stat -c %b "$f")
		"$RQLOCK" run --name=t --filename="$f" --rw=trim --bs=64k --offset=512k --size=1m \
			--ioengine=$eng --direct=1 --iodepth=4 --output-format=json >"$TMP/f.json" 2>"$TMP/f.err" ||
			{ cat "$TMP/f.err" >&2; fail "$eng: trim of a file: exit $?"; }
		[ -s "$TMP/f.err" ] && { cat "$TMP/f.err" >&2; fail "$eng: stderr not empty"; }
		b1=$(stat -c %b "$f")
		# 1 MiB is 2048 blocks of 512 bytes; file systems count their own metadata: 3/4 of it
		[ $((b0 - b1)) -ge 1536 ] || fail "$eng: st_blocks $b0 -> $b1: no 1 MiB hole punched"
		[ "$(stat -c %s "$f")" = $((2 << 20)) ] || fail "$eng: the trim changed the file's size"
		cmp -s -n $((1 << 20)) -i $((512 << 10)):0 "$f" /dev/zero || fail "$eng: the trimmed range does not read zeros"
		cmp -s -n 4096 -i $(((512 << 10) - 4096)):0 "$f" /dev/zero && fail "$eng: the block before the range was trimmed"
		cmp -s -n 4096 -i $((1536 << 10)):0 "$f" /dev/zero && fail "$eng: the block after the range was trimmed"
		got=$(json "$TMP/f.json" "(j['jobs'][0]['trim']['io_bytes'], j['jobs'][0]['trim']['total_ios'], j['jobs'][0]['write']['io_bytes'])")
		[ "$got" = "(1048576, 16, 0)" ] || fail "$eng: trim bytes, ios, write bytes: $got"
	done
	echo "file: a trim punches a hole that reads zeros (io_uring, libaio)"
else
	echo "file: skipped, $TMP's file system punches no holes"
fi

# ---- a block device: io_uring's block discard (BLKDISCARD where the kernel lacks it) ----
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null &&
   head -c $((4 << 20)) /dev/urandom >"$TMP/back.img" &&
   dev=$(losetup --find --show "$TMP/back.img" 2>/dev/null); then
	cleanup_hooks+=("losetup -d $dev")
	if [ "$(cat /sys/block/"${dev#/dev/}"/queue/discard_max_bytes 2>/dev/null)" -gt 0 ] 2>/dev/null; then
		sync "$TMP/back.img"
		b0=$(stat -c %b "$TMP/back.img")
		"$RQLOCK" run --name=t --filename="$dev" --rw=randtrim --bs=64k --offset=1m --size=2m \
			--direct=1 --iodepth=4 --output-format=json >"$TMP/b.json" 2>"$TMP/b.err" ||
			{ cat "$TMP/b.err" >&2; fail "blkdev: randtrim: exit $?"; }
		cmp -s -n $((2 << 20)) -i $((1 << 20)):0 "$dev" /dev/zero || fail "blkdev: the trimmed range does not read zeros"
		cmp -s -n 4096 -i $((3 << 20)):0 "$dev" /dev/zero && fail "blkdev: the block after the range was trimmed"
		sync "$TMP/back.img"
		b1=$(stat -c %b "$TMP/back.img")
		# the loop driver punches the discarded range out of its backing file
		[ $((b0 - b1)) -ge 3072 ] || fail "blkdev: backing file st_blocks $b0 -> $b1: no 2 MiB discarded"
		got=$(json "$TMP/b.json" "(j['jobs'][0]['trim']['io_bytes'], j['jobs'][0]['trim']['total_ios'])")
		[ "$got" = "(2097152, 32)" ] || fail "blkdev: trim bytes, ios: $got"
		echo "blkdev: a randtrim of a loop device discards its range"
	else
		echo "blkdev: skipped, $dev takes no discard"
	fi
else
	echo "blkdev: skipped, needs root and losetup"
fi

# ---- every lock mode: trimwrite pairs, exactly once ----
modes=$(rq_modes)
[ -n "$modes" ] || fail "no lock modes listed"
for mode in $modes; do
	for rw in trimwrite randtrimwrite; do
		# the clones on regions of their own: two writers of one RAM block race (by design, in mq)
		"$RQLOCK" run --lock="$mode" --workers=2 --name=t --filename=@ram0 --rw=$rw --bs=4k \
			--size=1m --offset_increment=1m --iodepth=8 --numjobs=2 --output-format=json >"$TMP/m.json" 2>"$TMP/m.err" ||
			{ cat "$TMP/m.err" >&2; fail "$mode $rw: exit $?"; }
		got=$(json "$TMP/m.json" "sorted(set((x['write']['io_bytes'], x['trim']['io_bytes'], x['trim']['total_ios'], x['read']['io_bytes']) for x in j['jobs']))")
		[ "$got" = "[(1048576, 1048576, 256, 0)]" ] || fail "$mode $rw: write, trim bytes, trims, reads: $got"
		got=$(json "$TMP/m.json" "(j['rqlock']['bios_submitted'] == j['rqlock']['bios_completed'], j['jobs'][0]['trim']['clat_ns']['N'])")
		[ "$got" = "(True, 256)" ] || fail "$mode $rw: exactly once, trim clat samples: $got"
	done
done
echo "lock modes $modes: trimwrite and randtrimwrite, as many bytes trimmed as written"

# ---- outputs: the normal text, and the logs' ddir 2 ----
"$RQLOCK" run --name=t --ioengine=null --rw=trimwrite --bs=8k --size=256k --write_bw_log="$TMP/l" \
	--write_lat_log="$TMP/l" --log_offset=1 --per_job_logs=0 >"$TMP/n.txt" 2>"$TMP/n.err" ||
	{ cat "$TMP/n.err" >&2; fail "null trimwrite: exit $?"; }
grep -q '^  trim: IOPS=.*(256KiB/' "$TMP/n.txt" || fail "no trim line in the normal output"
grep -q '^   TRIM: bw=' "$TMP/n.txt" || fail "no TRIM line in the group status"
grep -q 'issued rwts: total=0,32,32,0 ' "$TMP/n.txt" || fail "issued rwts: $(grep 'issued rwts' "$TMP/n.txt")"
for log in bw clat; do
	awk -F', *' '
		NR % 2 == 1 { if ($3 != 2) bad = "line " NR ": ddir " $3 ", a trim expected"; off = $5; next }
		{ if ($3 != 1 || $5 != off || $4 != 8192) bad = "line " NR ": not the write of the trim before it" }
		END { if (NR != 64) bad = NR " lines, 64 expected"; if (bad) { print bad; exit 1 } }' \
		"$TMP/l_$log.log" >&2 || fail "$log log: trims and writes do not pair"
done
echo "outputs: trim in the normal text and group status, ddir 2 in the logs, each write after its trim"

# the trim direction has its bandwidth and IOPS samples, as fio's (500 ms each)
"$RQLOCK" run --name=t --ioengine=null --rw=randtrim --size=16m --runtime=1200ms --time_based \
	--output-format=json >"$TMP/s.json" 2>"$TMP/s.err" || { cat "$TMP/s.err" >&2; fail "null randtrim: exit $?"; }
got=$(json "$TMP/s.json" "(j['jobs'][0]['trim']['bw_samples'] >= 1, j['jobs'][0]['trim']['iops_samples'] >= 1, j['jobs'][0]['trim']['bw'] > 0, j['jobs'][0]['read']['bw_samples'])")
[ "$got" = "(True, True, True, 0)" ] || fail "trim samples (bw, iops, bw > 0, read samples): $got"

# ---- refusals: exit 2, one line, nothing written ----
"$RQLOCK" run --readonly --name=t --filename="$TMP/ro.dat" --rw=randtrim --size=1m >"$TMP/ro.out" 2>"$TMP/ro.err"
rc=$?
[ $rc = 2 ] || fail "--readonly with rw=randtrim: exit $rc, 2 expected"
[ "$(wc -l <"$TMP/ro.err")" = 1 ] && grep -q 'randtrim' "$TMP/ro.err" || fail "--readonly: stderr: $(cat "$TMP/ro.err")"
[ ! -e "$TMP/ro.dat" ] && [ ! -s "$TMP/ro.out" ] || fail "--readonly: something was written"
for dev in @floppy0 @hdd0; do
	"$RQLOCK" run --name=t --filename=$dev --rw=trim --size=64k >"$TMP/fd.out" 2>"$TMP/fd.err"
	rc=$?
	[ $rc = 2 ] || fail "rw=trim on $dev: exit $rc, 2 expected"
	[ "$(wc -l <"$TMP/fd.err")" = 1 ] && grep -q "$dev.*has no discard" "$TMP/fd.err" ||
		fail "rw=trim on $dev: stderr: $(cat "$TMP/fd.err")"
	[ ! -s "$TMP/fd.out" ] || fail "rw=trim on $dev: stdout not empty"
done
echo "refusals: --readonly and the 2.4 models (no discard) exit 2 with one line"
echo "PASS"
