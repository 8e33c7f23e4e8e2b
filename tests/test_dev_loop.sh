#!/usr/bin/env bash
# Block devices in every lock mode: blkdev (io_uring) and aio (libaio) on
# a loop device made for the test over a temporary file (direct-io on),
# each running a write job, a read job that finds the write's stamps, and
# a write-then-read job.  Root only: it makes and detaches the device.
. "$(dirname "$0")/test_dev_lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to attach a loop device"
need losetup
truncate -s 8M "$TMP/loop.img"
dev=$(losetup --find --show --direct-io=on "$TMP/loop.img" 2>/dev/null) || skip "losetup cannot attach a loop device here"
cleanup_hooks+=("losetup -d $dev")

modes=$(lock_modes)
sectors=$(( (1 << 20) / 512 ))
for engine in io_uring libaio; do
	kind=blkdev
	[ $engine = libaio ] && kind=aio
	for mode in $modes; do
		t="$kind.$mode"
		for k in write read verify; do
			jobfile "$TMP/$t.$k.fio" $engine "$dev" 4k 1m 16 $k
			run_ok "$t.$k" --lock="$mode" "$TMP/$t.$k.fio"
		done
		[ "$(devfield "$t.write" kind)" = $kind ] || fail "$t: kind $(devfield "$t.write" kind)"
		[ "$(devfield "$t.write" subkind)" = loop ] || fail "$t: subkind $(devfield "$t.write" subkind)"
		[ "$(devfield "$t.write" path)" = "$dev" ] || fail "$t: path $(devfield "$t.write" path)"
		v=$(verified "$t.read")
		[ "$v" = $sectors ] || fail "$t: read run verified $v sectors, expected $sectors"
		v=$(verified "$t.verify")
		[ "$v" = $sectors ] || fail "$t: write-then-read verified $v sectors, expected $sectors"
		echo "ok: $t on $dev (verified $v sectors, model '$(devfield "$t.write" model)')"
		dd if=/dev/zero of="$dev" bs=1M count=1 oflag=direct status=none
	done
done
# merged requests reach the device as vectored I/O: sequential 4k bios at depth 32 merge
jobfile "$TMP/merge.fio" io_uring "$dev" 4k 1m 32 verify
run_ok merge --lock=global "$TMP/merge.fio"
[ "$(verified merge)" = $sectors ] || fail "merged requests: verified $(verified merge)"
echo "test_dev_loop: ok ($dev)"
