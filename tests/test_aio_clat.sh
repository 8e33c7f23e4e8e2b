#!/usr/bin/env bash
# Regression (found comparing with fio 3.33): libaio's completion latency
# came out near 0 (mean 66 ns, min 0).  libaio is a polled device: the
# worker's reap submits its batch with io_submit() and reaps in the same
# call, and a buffered read of a file's hole is done inside io_submit().
# The completions were stamped with the clock read before the reap, so
# before the I/O happened (clamped to the issue time), and the next I/Os'
# build time was that stale clock too, so their slat held the io_submit().
# Now completions take the clock after the reap.  What is guaranteed: each
# read's clat holds at least its own io_submit() of a 4 KiB copy, so clat's
# min is above 0 and its mean above 200 ns, and slat (bio built -> accepted
# by the queue, no syscall) is below clat.
. "$(dirname "$0")/lib.sh"
need python3
truncate -s 16m "$TMP/sparse"
"$RQLOCK" run --name=t --ioengine=libaio --rw=randread --filename="$TMP/sparse" --size=16m --iodepth=4 \
	--output-format=json --output "$TMP/o.json" || fail "libaio run: exit $?"
json "$TMP/o.json" "'slat %.0f clat %.0f (min %d) lat %.0f ns' % (j['jobs'][0]['read']['slat_ns']['mean'], j['jobs'][0]['read']['clat_ns']['mean'], j['jobs'][0]['read']['clat_ns']['min'], j['jobs'][0]['read']['lat_ns']['mean'])"
python3 - "$TMP/o.json" <<'PY' || fail "libaio's completion latency does not hold its io_submit()"
import json, sys
r = json.load(open(sys.argv[1]))['jobs'][0]['read']
assert r['total_ios'] == 4096, r['total_ios']
assert r['clat_ns']['min'] > 0, r['clat_ns']
assert r['clat_ns']['mean'] > 200, r['clat_ns']['mean']
assert r['slat_ns']['mean'] < r['clat_ns']['mean'], (r['slat_ns']['mean'], r['clat_ns']['mean'])
PY
echo PASS
