#!/usr/bin/env bash
# What users trust fio for, on loop devices made for the test (root only):
#  - a device holding a filesystem is refused for writes (io_uring, libaio
#    and a disk model backed by it): exit 2, one line naming the device
#    and why, nothing on stdout, nothing written; a read job is allowed;
#    --allow-mounted-write lets the write through;
#  - a mounted device is refused, naming the mount point; so is a whole
#    disk whose partition is mounted;
#  - a device attached read-only is opened read-only for a read job and
#    refused with one line for a write job;
#  - misaligned offsets, sizes past the end, missing permissions: one line,
#    exit 2.
. "$(dirname "$0")/test_dev_lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to attach loop devices"
need losetup
need mkfs.ext4
need md5sum

attach() {	# attach VAR FILE [losetup options]: the device into VAR, detached at exit
	local var=$1 d
	shift
	d=$(losetup --find --show "$@" 2>/dev/null) || skip "losetup cannot attach a loop device here"
	cleanup_hooks+=("losetup -d $d")
	printf -v "$var" '%s' "$d"
}

truncate -s 16M "$TMP/fs.img"
attach dev --direct-io=on "$TMP/fs.img"
mkfs.ext4 -q -F "$dev" || fail "mkfs.ext4"
sum=$(md5sum <"$dev")

for engine in io_uring libaio; do
	jobfile "$TMP/w.$engine.fio" $engine "$dev" 4k 1m 4 write
	run_refused "fs.$engine" "$TMP/w.$engine.fio"
	grep -q "refusing to write to $dev" "$TMP/fs.$engine.err" || fail "$engine: device not named: $(cat "$TMP/fs.$engine.err")"
	grep -q "ext2/3/4" "$TMP/fs.$engine.err" || fail "$engine: signature not named: $(cat "$TMP/fs.$engine.err")"
done
jobfile "$TMP/w.model.fio" io_uring "@hdd0,file=$dev" 4k 1m 4 write
run_refused fs.model "$TMP/w.model.fio"
grep -q "ext2/3/4" "$TMP/fs.model.err" || fail "model over the device: $(cat "$TMP/fs.model.err")"
[ "$(md5sum <"$dev")" = "$sum" ] || fail "the filesystem was written"
# reading is always allowed
jobfile "$TMP/r.fio" io_uring "$dev" 4k 1m 4 read
run_ok read "$TMP/r.fio"
echo "ok: a formatted device is refused for writes (io_uring, libaio, model), read allowed"

# mounted: refused, naming where
mkdir -p "$TMP/mnt"
if mount "$dev" "$TMP/mnt" 2>/dev/null; then
	cleanup_hooks=("umount $TMP/mnt" "${cleanup_hooks[@]}")
	run_refused mounted "$TMP/w.io_uring.fio"
	grep -q "mounted on $TMP/mnt" "$TMP/mounted.err" || fail "mount point not named: $(cat "$TMP/mounted.err")"
	umount "$TMP/mnt"
	cleanup_hooks=("${cleanup_hooks[@]:1}")
	echo "ok: a mounted device is refused: $(cat "$TMP/mounted.err")"
else
	echo "note: mount of ext4 on a loop device failed here; the mounted case is not run"
fi

# allowed when the user says so
jobfile "$TMP/v.fio" io_uring "$dev" 4k 1m 4 verify
run_ok allowed --allow-mounted-write "$TMP/v.fio"
[ "$(verified allowed)" = 2048 ] || fail "allowed write: verified $(verified allowed)"
echo "ok: --allow-mounted-write writes and reads back"

# a partition mounted: the whole disk is refused
if command -v sfdisk >/dev/null; then
	truncate -s 32M "$TMP/part.img"
	attach pdev -P "$TMP/part.img"
	echo 'start=2048, size=40000, type=83' | sfdisk -q "$pdev" >/dev/null 2>&1 || fail "sfdisk"
	partx -u "$pdev" 2>/dev/null || true
	for i in 1 2 3 4 5; do [ -b "${pdev}p1" ] && break; sleep 0.2; done
	if [ -b "${pdev}p1" ] && mkfs.ext4 -q -F "${pdev}p1" && mount "${pdev}p1" "$TMP/mnt" 2>/dev/null; then
		cleanup_hooks=("umount $TMP/mnt" "${cleanup_hooks[@]}")
		jobfile "$TMP/wp.fio" io_uring "$pdev" 4k 1m 4 write
		run_refused part "$TMP/wp.fio"
		grep -q "partition .* is mounted on $TMP/mnt" "$TMP/part.err" || fail "partition: $(cat "$TMP/part.err")"
		echo "ok: $(cat "$TMP/part.err")"
		umount "$TMP/mnt"
		cleanup_hooks=("${cleanup_hooks[@]:1}")
	else
		echo "note: no partition device appeared; the partition case is not run"
	fi
fi

# read-only attachment: opened read-only for reads, a clear line for writes
truncate -s 8M "$TMP/ro.img"
attach rodev -r "$TMP/ro.img"
jobfile "$TMP/ror.fio" io_uring "$rodev" 4k 1m 4 read
run_ok ro-read "$TMP/ror.fio"
jobfile "$TMP/row.fio" io_uring "$rodev" 4k 1m 4 write
run_refused ro-write "$TMP/row.fio"
grep -qi "read-only\|permission" "$TMP/ro-write.err" || fail "read-only device: $(cat "$TMP/ro-write.err")"
echo "ok: read-only device: $(cat "$TMP/ro-write.err")"

# misaligned offset, past the end
truncate -s 8M "$TMP/blank.img"
attach bdev --direct-io=on "$TMP/blank.img"
printf '[m]\nfilename=%s\nrw=read\nbs=4k\nsize=64k\noffset=100\ndirect=1\n' "$bdev" >"$TMP/mis.fio"
run_refused misaligned "$TMP/mis.fio"
grep -q "offset=100" "$TMP/misaligned.err" || fail "misaligned: $(cat "$TMP/misaligned.err")"
printf '[b]\nfilename=%s\nrw=write\nbs=4k\nsize=64m\ndirect=1\n' "$bdev" >"$TMP/big.fio"
bsum=$(md5sum <"$bdev")
run_refused past-end "$TMP/big.fio"
grep -q "past the end" "$TMP/past-end.err" || fail "past the end: $(cat "$TMP/past-end.err")"
[ "$(md5sum <"$bdev")" = "$bsum" ] || fail "a refused job wrote"
echo "ok: $(cat "$TMP/misaligned.err")"
echo "ok: $(cat "$TMP/past-end.err")"

# missing permission: a root-only file, run as nobody
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	chmod 755 "$TMP"
	truncate -s 1M "$TMP/secret.img"
	chmod 600 "$TMP/secret.img"
	printf '[p]\nfilename=%s\nrw=read\nbs=4k\nsize=64k\n' "$TMP/secret.img" >"$TMP/perm.fio"
	chmod 644 "$TMP/perm.fio"
	rc=0
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$RQLOCK" run "$TMP/perm.fio" \
		>"$TMP/perm.out" 2>"$TMP/perm.err" || rc=$?
	if [ $rc -eq 126 ] || [ $rc -eq 127 ]; then
		echo "note: nobody cannot execute $RQLOCK here; the permission case is not run"
	else
		[ $rc -eq 2 ] || fail "permission: exit $rc: $(cat "$TMP/perm.err")"
		[ "$(wc -l <"$TMP/perm.err")" -eq 1 ] || fail "permission: $(cat "$TMP/perm.err")"
		grep -q "Permission denied" "$TMP/perm.err" || fail "permission: $(cat "$TMP/perm.err")"
		echo "ok: $(cat "$TMP/perm.err")"
	fi
fi
echo "test_dev_safety: ok"
