#!/usr/bin/env bash
# fill_device (fill_fs) as fio 3.33 runs it (issue 34, Debian's
# surface-scan.fio): a sequential writer with no size writes until its
# filesystem is full, and the write that finds it full (ENOSPC, or short:
# EIO from the queue) ends the job without an error; fio counts that I/O as
# issued (a short one twice, its rest requeued) and not its bytes.  A job
# after it on the file reads the file as it then is.  rqlock accepted
# fill_device and did nothing with it: the writer failed with "no size
# given".  Each case runs in a tmpfs of its own (4 MiB: a full disk is
# never this machine's), under rqlock in every lock mode and fio beside.
# Skips (77) where a tmpfs cannot be mounted (not root).
. "$(dirname "$0")/lib.sh"
need python3
[ "$(id -u)" = 0 ] || skip "mounting a tmpfs needs root"
mnt=$TMP/fs
mkdir -p "$mnt"
mount -t tmpfs -o size=4194304 tmpfs "$mnt" 2>/dev/null || skip "cannot mount a tmpfs here"
cleanup_hooks+=("umount -l '$mnt'")

# counts TOOL JOB: per job "name:write BYTES/IOS read BYTES/IOS err=E", on an empty tmpfs
counts() {
	local out
	rm -rf "${mnt:?}"/*
	cp "$2" "$mnt/j.fio"
	if [ "$1" = fio ]; then
		out=$(cd "$mnt" && fio --aux-path="$TMP" --output-format=json j.fio 2>"$TMP/err") ||
			{ cat "$TMP/err" >&2; fail "$2: fio: exit"; }
	else
		out=$(cd "$mnt" && RQLOCK_LOCK=$1 "$RQLOCK" run --aux-path="$TMP" --output-format=json j.fio \
			2>"$TMP/err") || { cat "$TMP/err" >&2; fail "$2: rqlock $1: exit"; }
	fi
	printf '%s' "$out" | python3 -c '
import json, sys
for j in json.load(sys.stdin)["jobs"]:
    print("%s:write %d/%d read %d/%d err=%d" % (j["jobname"], j["write"]["io_bytes"], j["write"]["total_ios"],
          j["read"]["io_bytes"], j["read"]["total_ios"], j["error"]))' | tr '\n' ' '
}

check() {
	local want=$1 job=$2 got m
	for m in $(rq_modes); do
		got=$(counts "$m" "$job")
		[ "$got" = "$want" ] || fail "$(basename "$job") under $m: $got, want $want"
	done
	if command -v fio >/dev/null; then
		got=$(counts fio "$job")
		[ "$got" = "$want" ] || fail "$(basename "$job") under fio: $got, want $want"
	fi
	echo "ok: $(basename "$job"): $want"
}

# 4 MiB less the tmpfs's own block: 63 writes of 64 KiB fit, the 64th is
# short (60 KiB), its rest finds the filesystem full; the reader sets its
# file up as it starts (create_serialize=0: fio would set it up before the
# writer ran, and find no file and no size)
cat >"$TMP/fill.fio" <<JOB
[w]
filename=data
rw=write
bs=64k
direct=1
fill_device=1
[r]
stonewall
create_serialize=0
filename=data
rw=read
bs=64k
direct=1
JOB
check "w:write 4128768/65 read 0/0 err=0 r:write 0/0 read 4128768/63 err=0 " "$TMP/fill.fio"
# fill_fs, with verify: the reads check what the writer left
sed -e 's/fill_device=1/fill_fs=1\nverify=crc32c\ndo_verify=0/' -e 's/^rw=read$/rw=read\nverify=crc32c/' \
	"$TMP/fill.fio" >"$TMP/fillv.fio"
check "w:write 4128768/65 read 0/0 err=0 r:write 0/0 read 4128768/63 err=0 " "$TMP/fillv.fio"
echo "test_fill_device: ok"
