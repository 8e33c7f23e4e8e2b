#!/usr/bin/env bash
# Regression for issue 26 (zero bandwidth logs): write_bw_log with
# ioengine=null logged 0 for every I/O, where fio logs bytes * 10^6 / clat.
# A null I/O completes inside its submission, so rqlock's clat was 0; it is
# rated over its latency now.  Every per-I/O sample must be positive, and
# agree with the I/O's logged latency: bw = bytes * 10^6 / lat_ns.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/bw.fio" <<JOB
[bw]
ioengine=null
filesize=1M
bs=4k
rw=randread
write_bw_log=$TMP/b
write_lat_log=$TMP/b
per_job_logs=0
log_offset=1
JOB
"$RQLOCK" run "$TMP/bw.fio" >/dev/null 2>"$TMP/bw.err" || { cat "$TMP/bw.err" >&2; fail "exit $?"; }
[ "$(wc -l <"$TMP/b_bw.log")" = 256 ] || fail "$(wc -l <"$TMP/b_bw.log") bw samples, expected 256"
zeros=$(awk -F', ' '$2 == 0' "$TMP/b_bw.log" | wc -l)
[ "$zeros" = 0 ] || fail "$zeros of 256 bw samples are 0"
# lat log values are ns: bytes * 10^6 / lat, the same I/O on the same line
paste -d, "$TMP/b_bw.log" "$TMP/b_lat.log" | awk -F', *' '
	{ want = int($4 * 1000000 / $8); if ($2 != want) { print "line " NR ": bw " $2 ", lat " $8 " gives " want; bad++ } }
	END { exit bad > 0 }' >&2 || fail "bw samples do not match the latencies"
echo "PASS"
