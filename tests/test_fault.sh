#!/usr/bin/env bash
# Fault injection through the @fault wrapper: EIO at a rate and at an
# offset, short completions, refused dispatches (BUSY), late completions,
# requests that never complete.  Each run must end (never hang), report
# its errors per job as fio does, and keep exactly-once accounting.
. "$(dirname "$0")/lib.sh"
need python3

# job NAME SPEC [EXTRA OPTIONS]: one 4 MiB randread job, QD 8, on SPEC
job() {
	printf '[%s]\nioengine=io_uring\nfilename=d0\nrw=randread\nbs=4k\nsize=4m\niodepth=8\n%s\n' "$1" "${3:-}" >"$TMP/$1.fio"
	echo "d0=$2" >"$TMP/$1.dev"
}
# run NAME MODE: exit status of rqlock on job NAME
run() {
	local rc=0
	timeout 60 "$RQLOCK" run --lock="$2" --workers 2 --device "$(cat "$TMP/$1.dev")" \
		${STALL:+--stall-timeout $STALL} --output-format=json --output "$TMP/$1.json" \
		"$TMP/$1.fio" 2>"$TMP/$1.err" || rc=$?
	[ $rc -ne 124 ] || fail "$1 ($2): hung"
	return $rc
}
check() {	# NAME PYTHON-EXPR over j (the JSON), job = j["jobs"][0]
	python3 - "$TMP/$1.json" "$2" <<'PY' || fail "$1: $2"
import json, sys
j = json.load(open(sys.argv[1])); job = j["jobs"][0]; rq = j["rqlock"]
assert rq["bios_submitted"] == rq["bios_completed"], rq
assert eval(sys.argv[2]), (job.get("error"), job["read"]["total_ios"])
PY
}

for mode in global per-queue; do
	job eio "@fault,eio_every=50,of=@null0"
	rc=0; run eio $mode || rc=$?
	[ $rc -eq 1 ] || fail "eio ($mode): exit $rc, expected 1"
	check eio 'job["error"] == 5'
	grep -q "Input/output error" "$TMP/eio.err" || fail "eio: no error line: $(cat "$TMP/eio.err")"

	job coe "@fault,eio_every=50,of=@null0" "continue_on_error=all"
	run coe $mode || fail "coe ($mode): continue_on_error=all must not fail the run (fio reports the first error as the job's error): $(cat "$TMP/coe.err")"
	check coe 'job["error"] == 5 and job["total_err"] == 20 and job["first_error"] == 5 and job["read"]["total_ios"] == 1024 - 20'

	job off "@fault,eio_offset=40960,of=@ram0,size=4m"
	rc=0; run off $mode || rc=$?
	[ $rc -eq 1 ] || fail "offset ($mode): exit $rc"
	grep -q "offset 40960" "$TMP/off.err" || fail "offset: error does not name offset 40960: $(cat "$TMP/off.err")"

	job short "@fault,short_every=100,of=@null0"
	rc=0; run short $mode || rc=$?
	[ $rc -eq 1 ] || fail "short ($mode): exit $rc"
	check short 'job["error"] == 5'

	job busy "@fault,busy_every=3,of=@null0,irqmode=1"
	run busy $mode || fail "busy ($mode): refused dispatches must be retried: $(cat "$TMP/busy.err")"
	check busy 'job["error"] == 0 and job["read"]["total_ios"] == 1024'

	job late "@fault,delay_us=200,of=@null0"
	run late $mode || fail "delay ($mode): $(cat "$TMP/late.err")"
	# Guaranteed: the delay starts at dispatch, after the bio was built, and
	# the bio ends no earlier than the timer, so total latency (lat) is at
	# least the delay on every I/O.  clat is not: it starts after the
	# submission, which may itself include the dispatch (flaky under TSan).
	check late 'job["read"]["lat_ns"]["min"] >= 200000 and job["read"]["total_ios"] == 1024'

	job hang "@fault,hang_every=100,of=@null0"
	start=$(date +%s); rc=0; STALL=1 run hang $mode || rc=$?
	[ $rc -eq 1 ] || fail "hang ($mode): exit $rc, expected 1"
	[ $(( $(date +%s) - start )) -lt 15 ] || fail "hang ($mode): the watchdog took too long"
	grep -q "stall: job 'hang'.*offset.*in flight" "$TMP/hang.err" || fail "hang: $(cat "$TMP/hang.err")"
	python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["rqlock"]["stalled"] == 1' "$TMP/hang.json" \
		|| fail "hang: JSON does not say stalled"
done

# A device that refuses a dispatch (BUSY) while nothing of its queue is
# in flight gets no completion to restart the queue.  The queue used to
# wait for its worker to be idle, which a worker kept busy by another job
# never is: job b starved until job a ended.  Now it is run again after a
# 3 ms delay (blk-mq's BLK_MQ_RESOURCE_DELAY), so b's 64 requests (32
# refusals, ~0.1 s quiet) end early and its exitall ends a; before, b
# ended only when a's 60 s were over.  The bound (a ended in under half
# of its runtime) is not a timing guess: b needs 1/300 of it when quiet.
cat >"$TMP/starve.fio" <<'JOB'
[a]
filename=@null0
rw=randread
bs=4k
size=64m
iodepth=4
time_based
runtime=60
[b]
exitall=1
filename=@fault,busy_every=2,of=@ram0,size=4m
rw=randwrite
bs=4k
size=256k
iodepth=1
JOB
for mode in $(rq_modes); do
	rc=0
	timeout 120 "$RQLOCK" run --lock=$mode --workers 1 --output-format=json --output "$TMP/starve.json" \
		"$TMP/starve.fio" 2>"$TMP/starve.err" || rc=$?
	[ $rc -eq 0 ] || fail "starve ($mode): exit $rc $(cat "$TMP/starve.err")"
	python3 - "$TMP/starve.json" <<'PY' || fail "starve ($mode): job b waited for job a to end"
import json, sys
j = json.load(open(sys.argv[1]))
a, b = j["jobs"]
assert b["write"]["total_ios"] == 64 and b["error"] == 0, b["write"]["total_ios"]
# b ran its 64 writes while a kept the only worker busy, and its exitall
# ended a long before a's own 60 s
assert a["job_runtime"] < 30000, (b["job_runtime"], a["job_runtime"])
PY
done

# delay over a device that completes through io_uring: refused up front
job bad "@fault,delay_us=5,of=$TMP/x.dat"
rc=0; run bad global || rc=$?
[ $rc -eq 2 ] || fail "delay over a file: exit $rc, expected 2"
job bad2 "@fault,eio_every=2"
rc=0; run bad2 global || rc=$?
[ $rc -eq 2 ] && grep -q "of=INNER" "$TMP/bad2.err" || fail "missing of=: exit $rc $(cat "$TMP/bad2.err")"
echo "test_fault: ok"
