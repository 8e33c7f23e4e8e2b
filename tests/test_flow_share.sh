#!/usr/bin/env bash
# Flows re-share when a member ends (fio's flow_put(): the job's I/Os
# leave the flow's count with its weight).  Pins the bug behind fio's
# t0014 failing: a finished clone's I/Os stayed in the count, so the
# survivors ran unthrottled, 1:1, until they had caught up with it.
#
# Jobs of weights 1:2:3, c ending after 100000 I/Os, b after 200000 (its
# exitall ends a).  The shares are counted, not timed: a ends with
# 100000 I/Os (ratio 0.5); with c's I/Os kept in the count it ends near
# 150000 (0.75).  One worker and four, under every lock mode.
#
# Then flow_sleep: a clone above its share stalls that long before it
# looks again, as fio's usleep() in flow_threshold_exceeded().  With
# flow_sleep=200ms and runtime=1s each clone gets about six looks; fio
# 3.33 issues 9, 9 and 20 I/Os.  Without the stall (rqlock before it)
# the clones issued millions, in the right ratio.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/flow.fio" <<'JOB'
[global]
ioengine=null
bs=4k
size=100g
flow_id=1
[a]
flow=1
time_based
runtime=120
[b]
flow=2
number_ios=200000
exitall=1
[c]
flow=3
number_ios=100000
JOB
for mode in $(rq_modes); do
	for w in 1 4; do
		"$RQLOCK" run --lock="$mode" --workers=$w --no-pin --output-format=json --output "$TMP/o.json" \
			"$TMP/flow.fio" 2>"$TMP/err" || fail "$mode w=$w: exit $? $(cat "$TMP/err")"
		r=$(json "$TMP/o.json" "'%.3f' % (j['jobs'][0]['read']['total_ios'] / j['jobs'][1]['read']['total_ios'])")
		echo "$mode workers=$w: a/b = $r"
		python3 -c "import sys; sys.exit(0 if 0.45 <= float(sys.argv[1]) <= 0.55 else 1)" "$r" \
			|| fail "$mode w=$w: a/b = $r, expected 0.5 (1:2) once c ended"
	done
done

cat >"$TMP/sleep.fio" <<'JOB'
[global]
ioengine=null
bs=4k
size=1g
time_based
runtime=1
flow_id=1
flow_sleep=200000
[a]
flow=1
[b]
flow=1
[c]
flow=2
JOB
for mode in $(rq_modes); do
	"$RQLOCK" run --lock="$mode" --workers=2 --no-pin --output-format=json --output "$TMP/o.json" \
		"$TMP/sleep.fio" 2>"$TMP/err" || fail "$mode flow_sleep: exit $? $(cat "$TMP/err")"
	n=$(json "$TMP/o.json" "' '.join(str(x['read']['total_ios']) for x in j['jobs'])")
	echo "$mode flow_sleep=200ms: I/Os $n (fio 3.33: 9 9 20)"
	for x in $n; do
		[ "$x" -ge 1 ] && [ "$x" -le 100 ] || fail "$mode flow_sleep: a clone issued $x I/Os in 1 s of 200 ms stalls"
	done
done
echo PASS
