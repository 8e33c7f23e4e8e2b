#!/usr/bin/env bash
# Regression (issue 18): under --lock=cluster a job that ends on an error
# while requests wait in a queue its device stopped (RQ_Q_BUSY, nothing in
# flight) hung for ever.  The engine kicks such a queue from the worker
# whose clone waits on it, but the kick came from outside the owner
# partition and cluster's run_queue dropped it; once the owner's own
# clones of that job had ended on the error, nothing restarted the queue.
# The issue's job exactly: it must end with exit 1 (job b's short read),
# exactly-once holding, in every mode, every primitive, 2 and 3 workers.
. "$(dirname "$0")/lib.sh"
need python3
cat >"$TMP/issue18.fio" <<'JOB'
[global]
rw=randrw
bs=4k
iodepth=8
size=16m
runtime=2
time_based
verify=crc32c
verify_backlog=512
[a]
filename=${D0}
numjobs=3
offset_increment=16m
[b]
filename=${D1}
numjobs=3
offset_increment=16m
JOB
export D0=@ram0,size=64m D1=@fault,busy_every=7,short_every=11,of=@ram1,size=64m

# one MODE TYPE WORKERS
one() {
	local out="$TMP/$1-$2-$3" rc=0
	# a hang detector, not a timing: the job runs 2 s
	timeout -k 5 120 "$RQLOCK" run --lock="$1" --lock-type="$2" --workers "$3" \
		--output-format=json --output "$out.json" "$TMP/issue18.fio" 2>"$out.err" || rc=$?
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "$1/$2/$3 workers: hung (the issue 18 defect)"
	[ $rc -eq 1 ] || fail "$1/$2/$3 workers: exit $rc, expected 1: $(head -3 "$out.err")"
	grep -q "job 'b'.* error at offset" "$out.err" || fail "$1/$2/$3: no error line: $(head -3 "$out.err")"
	python3 - "$out.json" <<'PY' || fail "$1/$2/$3 workers: JSON check"
import json, sys
j = json.load(open(sys.argv[1]))
rq = j["rqlock"]
assert rq["bios_submitted"] == rq["bios_completed"], rq
assert rq["stalled"] == 0 and rq["interrupted"] == 0, rq
a = [x for x in j["jobs"] if x["jobname"] == "a"]
b = [x for x in j["jobs"] if x["jobname"] == "b"]
assert len(a) == 3 and len(b) == 3
assert all(x["error"] == 0 for x in a), [x["error"] for x in a]
assert any(x["error"] == 5 for x in b), [x["error"] for x in b]
PY
}

for t in ttas ticket mcs mutex; do
	one cluster $t 2
done
one cluster ttas 3
one cluster mutex 3
for m in $(rq_modes); do
	[ "$m" = cluster ] && continue	# every primitive above
	one $m ttas 2
done
echo "test_cluster_busy_error: ok"
