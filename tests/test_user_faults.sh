#!/usr/bin/env bash
# The faults a user meets (issue 14):
#  - a full filesystem during layout leaves no file rqlock created (an
#    8 MiB tmpfs mounted here; root only), and a file it only extended is
#    truncated back to its old size and content;
#  - a file truncated under a running job: the error line names the offset
#    and says "end of file", not a bare EIO;
#  - SIGINT during layout removes what the run created, exit 130.
. "$(dirname "$0")/lib.sh"
need python3

# ---- truncated under a running job (no root needed) ----
printf '[w]\nfilename=%s\nrw=write\nbs=64k\nsize=16m\n' "$TMP/t.img" >"$TMP/tw.fio"
"$RQLOCK" run "$TMP/tw.fio" >/dev/null 2>&1 || fail "truncate: could not write the file"
printf '[r]\nfilename=%s\nrw=randread\nbs=4k\nsize=16m\niodepth=4\ntime_based\nruntime=60\n' \
	"$TMP/t.img" >"$TMP/tr.fio"
"$RQLOCK" run --output-format=json --output "$TMP/tr.json" "$TMP/tr.fio" 2>"$TMP/tr.err" &
pid=$!
# truncate only once the run has begun (worker threads exist: setup is over), or the
# setup would see a short file and lay it out again
for _ in $(seq 1 3000); do
	[ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.01
done
sleep 0.2
truncate -s 1m "$TMP/t.img"
wait $pid
rc=$?
[ $rc -eq 1 ] || fail "truncate: exit $rc, expected 1: $(cat "$TMP/tr.err")"
grep -Eq "read error at offset [0-9]+ len 4096: .*end of file: the file is 1048576 bytes now" "$TMP/tr.err" ||
	fail "truncate: no offset and end-of-file reason: $(cat "$TMP/tr.err")"
off=$(grep -o 'offset [0-9]*' "$TMP/tr.err" | head -1 | cut -d' ' -f2)
[ "$off" -ge 1048576 ] || fail "truncate: named offset $off is inside the file"
[ "$(json "$TMP/tr.json" 'j["jobs"][0]["error"]')" = 5 ] || fail "truncate: job error is not EIO (fio's 5)"
echo "ok: truncated file: offset $off, end of file"

[ "$(id -u)" -eq 0 ] || skip "the full-disk and layout cases need root to mount a tmpfs"

# ---- full filesystem during layout ----
mnt="$TMP/mnt"
mkdir "$mnt"
mount -t tmpfs -o size=8m rqlock-test "$mnt" 2>/dev/null || skip "cannot mount a tmpfs here"
cleanup_hooks+=("umount $mnt")
printf '[w]\nfilename=%s\nrw=randwrite\nbs=4k\nsize=16m\n' "$mnt/w.img" >"$TMP/full.fio"
"$RQLOCK" run "$TMP/full.fio" >/dev/null 2>"$TMP/full.err"
rc=$?
[ $rc -eq 2 ] || fail "full: exit $rc, expected 2"
grep -q "No space left on device; removed the file it created" "$TMP/full.err" || fail "full: $(cat "$TMP/full.err")"
[ -z "$(ls -A "$mnt")" ] || fail "full: left behind: $(ls -la "$mnt")"
# two files: the first fits, the second does not; neither stays
printf '[w]\nfilename=%s:%s\nrw=randwrite\nbs=4k\nsize=12m\n' "$mnt/a.img" "$mnt/b.img" >"$TMP/full2.fio"
"$RQLOCK" run "$TMP/full2.fio" >/dev/null 2>"$TMP/full2.err"
rc=$?
[ $rc -eq 2 ] || fail "full, two files: exit $rc, expected 2"
[ -z "$(ls -A "$mnt")" ] || fail "full, two files: left behind: $(ls -la "$mnt")"
grep -q "removed $mnt/a.img, laid out by this run" "$TMP/full2.err" || fail "full, two files: $(cat "$TMP/full2.err")"
# the same, the first file behind a @fault wrapper: what its inner device laid out goes too
printf '[w]\nfilename=A:B\nrw=randwrite\nbs=4k\nsize=12m\n' >"$TMP/full4.fio"
"$RQLOCK" run --device "A=@fault0,eio_every=1000,of=$mnt/a.img" --device "B=$mnt/b.img" \
	"$TMP/full4.fio" >/dev/null 2>"$TMP/full4.err"
rc=$?
[ $rc -eq 2 ] || fail "full, fault over a file: exit $rc, expected 2"
[ -z "$(ls -A "$mnt")" ] || fail "full, fault over a file: left behind: $(ls -la "$mnt")"
grep -q "removed $mnt/a.img, laid out by this run" "$TMP/full4.err" || fail "full, fault over a file: $(cat "$TMP/full4.err")"
# a file of the user's, too short: extended, then truncated back with its content intact
head -c 1048576 /dev/urandom >"$mnt/mine.img"
sum=$(md5sum <"$mnt/mine.img")
printf '[w]\nfilename=%s\nrw=randwrite\nbs=4k\nsize=16m\n' "$mnt/mine.img" >"$TMP/full3.fio"
"$RQLOCK" run "$TMP/full3.fio" >/dev/null 2>"$TMP/full3.err"
rc=$?
[ $rc -eq 2 ] || fail "full, existing file: exit $rc, expected 2"
[ "$(stat -c %s "$mnt/mine.img")" = 1048576 ] || fail "full, existing file: size $(stat -c %s "$mnt/mine.img")"
[ "$(md5sum <"$mnt/mine.img")" = "$sum" ] || fail "full, existing file: content changed"
grep -q "truncated back to its old size" "$TMP/full3.err" || fail "full, existing file: $(cat "$TMP/full3.err")"
rm -f "$mnt/mine.img"
echo "ok: full filesystem leaves nothing behind"

# ---- SIGINT during layout ----
# Deterministic: stop the process as soon as it says it lays out, look at
# the file (partial: the layout is under way), then SIGINT and continue it.
# A 256 MiB tmpfs file: big enough that the layout is still running when stopped.
umount "$mnt" && mount -t tmpfs -o size=300m rqlock-test "$mnt" || skip "cannot mount a 300m tmpfs"
printf '[w]\nfilename=%s\nrw=randwrite\nbs=4k\nsize=256m\n' "$mnt/big.img" >"$TMP/int.fio"
tries=0
while :; do
	tries=$((tries + 1))
	rm -f "$mnt/big.img"
	"$RQLOCK" run "$TMP/int.fio" >"$TMP/int.out" 2>"$TMP/int.err" &
	pid=$!
	for _ in $(seq 1 2000); do
		grep -q "Laying out IO file" "$TMP/int.out" 2>/dev/null && break
		sleep 0.005
	done
	kill -STOP $pid
	size=$(stat -c %s "$mnt/big.img" 2>/dev/null || echo 0)
	kill -INT $pid
	kill -CONT $pid
	wait $pid
	rc=$?
	[ "$size" -lt $((256 << 20)) ] && break
	# the layout had finished when stopped: the run was interrupted instead; try again
	[ $tries -lt 5 ] || skip "the layout always finished before the signal (machine too fast)"
done
[ $rc -eq 130 ] || fail "SIGINT in layout: exit $rc, expected 130: $(cat "$TMP/int.err")"
[ ! -e "$mnt/big.img" ] || fail "SIGINT in layout: $(stat -c %s "$mnt/big.img") bytes left behind"
grep -Eq "layout interrupted|interrupted during layout" "$TMP/int.err" || fail "SIGINT in layout: $(cat "$TMP/int.err")"
echo "ok: SIGINT during layout ($size bytes written when stopped) removed the file"
echo "test_user_faults: ok"
