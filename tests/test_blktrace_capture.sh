#!/usr/bin/env bash
# issue 34: a real capture, where blktrace can run: blktrace on a loop
# device made for the test while rqlock writes and reads it, blkparse -d
# into one binary trace, and that trace replayed by rqlock (and fio 3.33)
# onto a file: the same reads and writes, bytes and counts, as the traced
# job reported (4 KiB direct I/Os: one bio each, none split).  Skips (77) with blktrace's reason
# where the kernel will not trace (containers: debugfs' trace files give
# EPERM) or the tools are missing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/blktrace_lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root for blktrace and a loop device"
need blktrace
need blkparse
need losetup
dbg=/sys/kernel/debug
if ! mountpoint -q $dbg; then
	mount -t debugfs none $dbg 2>/dev/null || skip "debugfs is not mounted at $dbg and cannot be"
	cleanup_hooks+=("umount $dbg")
fi
truncate -s 16M "$TMP/disk.img"
dev=$(losetup --find --show --direct-io=on "$TMP/disk.img" 2>/dev/null) || skip "losetup cannot attach a loop device"
cleanup_hooks+=("losetup -d $dev")

# blktrace until killed; it reports a failure to trace and exits, or keeps running
blktrace -d "$dev" -D "$TMP" -o cap >"$TMP/bt.out" 2>"$TMP/bt.err" &
bt=$!
cleanup_hooks+=("kill $bt 2>/dev/null")
sleep 1
if ! kill -0 $bt 2>/dev/null || grep -q "FAILED\|failed" "$TMP/bt.err"; then
	wait $bt 2>/dev/null
	skip "blktrace cannot trace $dev here: $(grep -m1 . "$TMP/bt.err")"
fi
"$RQLOCK" run --name=w --filename="$dev" --rw=randrw --bs=4k --size=4m --direct=1 --iodepth=4 \
	--output-format=json >"$TMP/w.json" || fail "the traced workload failed"
sleep 1
kill -INT $bt
wait $bt 2>/dev/null
ls "$TMP"/cap.blktrace.* >/dev/null 2>&1 || fail "blktrace wrote no per-CPU files"
(cd "$TMP" && blkparse -i cap -d cap.bin -o /dev/null) >/dev/null 2>&1 || fail "blkparse -d failed"
[ -s "$TMP/cap.bin" ] || fail "blkparse wrote an empty trace"

# replay on a file: rqlock's bytes; fio 3.33's the same
truncate -s 16M "$TMP/f"
"$RQLOCK" run --name=r --read_iolog="$TMP/cap.bin" --replay_redirect="$TMP/f" --ioengine=null --output-format=json \
	>"$TMP/r.json" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "rqlock cannot replay the capture"; }
r=$(counts "$TMP/r.json")
[ "$r" = "$(counts "$TMP/w.json")" ] || fail "the capture replays $r; the traced job did $(counts "$TMP/w.json")"
if [ -n "$FIO" ]; then
	fio --name=r --read_iolog="$TMP/cap.bin" --replay_redirect="$TMP/f" --ioengine=null --output-format=json \
		--output="$TMP/f.json" 2>/dev/null || fail "fio cannot replay the capture"
	[ "$(counts "$TMP/f.json")" = "$r" ] || fail "rqlock replayed $r, fio 3.33 $(counts "$TMP/f.json")"
fi
echo "PASS: the capture replays: $r"
