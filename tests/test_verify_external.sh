#!/usr/bin/env bash
# Verify catches a block another process changed mid-run: a write+verify
# job (verify=crc32c, do_verify=1) is paced so its write pass takes a few
# seconds; as soon as the file's first block holds written data, this
# script overwrites 8 bytes of it under the running job.  The verify pass
# that follows must report a crc32c mismatch at offset 0, naming the first
# bad byte (100), and the job must fail (exit 1).  Buffered and direct=1
# both: the change goes through the page cache, so a direct read must see
# it too.  (The stop-30 note listed a by-hand probe that missed such a
# change; this pins that it does not.)
. "$(dirname "$0")/lib.sh"
need python3
f="$TMP/v.dat"
for direct in 0 1; do
	# the file exists, sparse, at its size: a missing one is laid out first
	# with a non-zero pattern (devices/blk.c rq_file_prepare()), which the
	# wait below took for the write pass's block 0 when it looked during
	# the layout; the change then went under the pass's own write of block
	# 0 and verify found nothing (CI, 1 run in about 50 here under load)
	rm -f "$f"
	truncate -s 8m "$f"
	# 2048 writes at 256 IOPS: an 8 s write pass (room for a starved poller), then the verify pass
	"$RQLOCK" run --name=w --filename="$f" --size=8m --rw=write --bs=4k --direct=$direct \
		--verify=crc32c --do_verify=1 --rate_iops=256 >"$TMP/out" 2>&1 &
	job=$!
	# wait for the write pass's first block (non-zero), for at most 60 s
	written=0
	for _ in $(seq 600); do
		if [ -s "$f" ] && [ "$(head -c 4096 "$f" | tr -d '\0' | wc -c)" -gt 0 ]; then written=1; break; fi
		sleep 0.1
	done
	[ $written = 1 ] || { kill $job; fail "direct=$direct: block 0 was never written"; }
	printf 'changed!' | dd of="$f" bs=1 seek=100 conv=notrunc status=none
	wait $job
	rc=$?
	# the change came during the write pass: if the pass was already over, this run proves nothing
	grep -q 'offset 0: crc32c mismatch' "$TMP/out" || { cat "$TMP/out"; fail "direct=$direct: the changed block was not reported (exit $rc)"; }
	grep -q 'first bad byte at offset 100 ' "$TMP/out" || { cat "$TMP/out"; fail "direct=$direct: the first bad byte is not 100"; }
	[ $rc = 1 ] || { cat "$TMP/out"; fail "direct=$direct: exit $rc, not 1"; }
	grep 'mismatch' "$TMP/out"
done
echo PASS
