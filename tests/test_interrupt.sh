#!/usr/bin/env bash
# SIGINT and SIGTERM mid-run: no new I/O, in-flight I/O drains, the JSON
# of what ran is written whole (and parses), later stonewalled jobs never
# start, exit status 130 / 143.  Also normal output on interruption.
. "$(dirname "$0")/lib.sh"
need python3
cat >"$TMP/long.fio" <<'JOB'
[slow]
ioengine=null
filename=@null0,delay_us=200
rw=randread
size=1g
iodepth=8
time_based
runtime=60
[later]
stonewall
ioengine=null
rw=randread
size=1g
time_based
runtime=60
JOB
for sig in INT TERM; do
	want=$([ $sig = INT ] && echo 130 || echo 143)
	start=$(date +%s)
	"$RQLOCK" run --output-format=json --output "$TMP/$sig.json" "$TMP/long.fio" 2>"$TMP/err" &
	pid=$!
	sleep 1
	kill -$sig $pid
	rc=0; wait $pid || rc=$?
	took=$(( $(date +%s) - start ))
	[ $rc -eq $want ] || fail "SIG$sig: exit $rc, expected $want ($(cat "$TMP/err"))"
	[ $took -lt 20 ] || fail "SIG$sig: took ${took}s to stop"
	python3 - "$TMP/$sig.json" $([ $sig = INT ] && echo 2 || echo 15) <<'PY' || fail "SIG$sig: JSON check"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["rqlock"]["interrupted"] == int(sys.argv[2]), j["rqlock"]["interrupted"]
slow, later = j["jobs"]
assert slow["jobname"] == "slow" and slow["read"]["total_ios"] > 0, slow["read"]
assert slow["read"]["runtime"] < 20000, slow["read"]["runtime"]
assert later["read"]["total_ios"] == 0, later["read"]
rq = j["rqlock"]
assert rq["bios_submitted"] == rq["bios_completed"], rq
PY
done
"$RQLOCK" run "$TMP/long.fio" >"$TMP/normal.txt" 2>/dev/null &
pid=$!; sleep 1; kill -INT $pid; rc=0; wait $pid || rc=$?
[ $rc -eq 130 ] || fail "normal output: exit $rc"
grep -q "slow" "$TMP/normal.txt" || fail "normal output missing after SIGINT"
echo "test_interrupt: ok"
