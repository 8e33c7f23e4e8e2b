#!/usr/bin/env bash
# SIGINT and SIGTERM mid-run: no new I/O, in-flight I/O drains, the JSON
# of what ran is written whole (and parses), later stonewalled jobs never
# start, exit status 130 / 143.  Also normal output on interruption.
# Then a run that cannot drain (issue 18): requests that never complete
# (@fault,hang_every) are abandoned when the grace runs out after one
# signal, or at once on a second, listed in rqlock.stuck and on one
# stderr line, counted as abandoned (never lost); exit 130 / 143.
. "$(dirname "$0")/lib.sh"
need python3
# wait_handler PID: until the run has installed its SIGINT handler (after
# setup), so that the signal tests the drain, not the default action
wait_handler() {
	local i mask
	for i in $(seq 300); do
		mask=$(awk '/^SigCgt:/ { print $2 }' /proc/"$1"/status 2>/dev/null) || return 1
		[ -n "$mask" ] && (( 0x$mask & 0x2 )) && return 0
		sleep 0.1
	done
	return 1
}
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
	# the handler is installed after setup: a loaded machine (TSan) may take
	# longer than a fixed sleep to get there, and the job must have run
	wait_handler $pid || fail "SIG$sig: no SIGINT handler installed"
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
assert rq["bios_abandoned"] == 0 and rq["stuck"] == [], rq
PY
done
"$RQLOCK" run "$TMP/long.fio" >"$TMP/normal.txt" 2>/dev/null &
pid=$!; wait_handler $pid || fail "normal output: no SIGINT handler"; sleep 1; kill -INT $pid; rc=0; wait $pid || rc=$?
[ $rc -eq 130 ] || fail "normal output: exit $rc"
grep -q "slow" "$TMP/normal.txt" || fail "normal output missing after SIGINT"

# A run that can never drain: every 50th request hangs.  The hang
# detector (timeout) is generous; the stall watchdog (300 s) is not what
# ends these runs (stalled stays 0).
cat >"$TMP/hang.fio" <<'JOB'
[h]
filename=@fault,hang_every=50,of=@null0
rw=randread
bs=4k
size=4m
iodepth=8
numjobs=2
time_based
runtime=120
JOB
# hang NAME SIGNALS EXPECTED-EXIT [OPTIONS]: send SIGNALS (e.g. "INT INT") and check
hang() {
	local name=$1 sigs=$2 want=$3 sig rc=0 i child=; shift 3
	timeout -k 5 60 "$RQLOCK" run --workers 2 "$@" --output-format=json --output "$TMP/$name.json" \
		"$TMP/hang.fio" 2>"$TMP/$name.err" &
	pid=$!
	# timeout's child is rqlock
	for i in $(seq 100); do
		child=$(pgrep -P $pid rqlock) && break
		sleep 0.1
	done
	[ -n "$child" ] || fail "$name: rqlock did not start"
	wait_handler "$child" || fail "$name: no SIGINT handler installed"
	sleep 0.5
	for sig in $sigs; do
		kill -$sig "$child"
		sleep 0.3
	done
	wait $pid || rc=$?
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "$name: did not end ($(cat "$TMP/$name.err"))"
	[ $rc -eq "$want" ] || fail "$name: exit $rc, expected $want ($(cat "$TMP/$name.err"))"
	[ "$(grep -c 'never came back' "$TMP/$name.err")" -eq 1 ] ||
		fail "$name: expected one stderr line naming the stuck requests: $(cat "$TMP/$name.err")"
	grep -q "never came back.*@fault,hang_every=50,of=@null0 read 4096 at [0-9]* ([0-9.]* s)" "$TMP/$name.err" ||
		fail "$name: the stderr line names no device, offset, age: $(cat "$TMP/$name.err")"
	python3 - "$TMP/$name.json" "$want" <<'PY' || fail "$name: JSON check"
import json, sys
j = json.load(open(sys.argv[1]))
rq = j["rqlock"]
assert rq["interrupted"] == int(sys.argv[2]) - 128, rq["interrupted"]
assert rq["stalled"] == 0, rq
# exactly-once: every bio came back or is listed as abandoned; none lost
assert rq["bios_abandoned"] > 0, rq
assert rq["bios_submitted"] == rq["bios_completed"] + rq["bios_abandoned"], rq
assert len(rq["stuck"]) == rq["bios_abandoned"], (len(rq["stuck"]), rq["bios_abandoned"])
for s in rq["stuck"]:
    assert s["device"] == "@fault,hang_every=50,of=@null0", s
    assert s["job"] == "h" and s["op"] == "read" and s["length"] == 4096, s
    assert s["offset"] % 4096 == 0 and s["offset"] < 4 << 20, s
    assert s["age_ns"] > 0, s
# at most a depth's worth per clone, each offset once per clone
per = {}
for s in rq["stuck"]:
    per.setdefault(s["clone"], []).append(s["offset"])
assert all(len(v) <= 8 and len(set(v)) == len(v) for v in per.values()), per
assert all(x["jobname"] == "h" for x in j["jobs"])
PY
}
# one SIGINT: the grace (default 5 s) runs out, the stuck requests are abandoned
hang grace INT 130
grep -q "within the 5 s grace" "$TMP/grace.err" || fail "grace: $(cat "$TMP/grace.err")"
# SIGTERM, a short grace
hang term TERM 143 --grace-period=1
# a second SIGINT ends the drain at once, whatever the grace
hang second "INT INT" 130 --grace-period=3600
grep -q "second signal" "$TMP/second.err" || fail "second: $(cat "$TMP/second.err")"
# the cluster mode too (its workers wait on each other's rings)
hang cluster INT 130 --lock=cluster --grace-period=1
# bad input
rc=0; "$RQLOCK" run --grace-period=x "$TMP/hang.fio" 2>"$TMP/bad.err" || rc=$?
[ $rc -eq 2 ] && grep -q -- "--grace-period=x" "$TMP/bad.err" || fail "--grace-period=x: exit $rc"
echo "test_interrupt: ok"
