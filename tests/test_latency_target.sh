#!/usr/bin/env bash
# latency_target / latency_window / latency_percentile / latency_run: fio's
# search for the deepest queue that meets a latency target (engine/lattarget.c).
# Only what the search guarantees is asserted, never a time:
# - a target every depth meets ends at iodepth; without latency_run the
#   search ends the job once found, with it the job does all its I/O;
# - a target no I/O can meet (a null device that completes after 2 ms,
#   a 100 us target): with latency_percentile=100 the job fails at depth 1
#   with ETIMEDOUT (fio's "max latency exceeded"); below 100 it stays at
#   depth 1 and never has two I/Os in flight;
# - on a device whose queue holds 2 (deeper queues wait), under every lock
#   mode: 1 <= latency_depth <= iodepth, and the JSON keys and the normal
#   output's "latency :" line agree with the job file and each other;
# - with fio installed, fio 3.33 and rqlock find the same depth for the
#   target every depth meets.
. "$(dirname "$0")/lib.sh"
need python3

# run NAME JOBTEXT [ARGS...]: JSON to $TMP/NAME.json, exit status in $rc
run() {
	local name=$1 text=$2

	shift 2
	printf '%b' "$text" >"$TMP/$name.fio"
	rc=0
	(cd "$TMP" && "$RQLOCK" run --output-format=json --output="$TMP/$name.json" "$@" "$TMP/$name.fio") \
		2>"$TMP/$name.err" || rc=$?
}
J() { json "$TMP/$1.json" "$2"; }
keys() { J "$1" "[j['jobs'][0][k] for k in ('latency_depth', 'latency_target', 'latency_percentile', 'latency_window')]"; }

# a target every depth meets: the search doubles up to iodepth, holds it a window, ends the job
run met '[j]\nioengine=null\nrw=randread\nbs=4k\niodepth=16\nsize=64m\nlatency_target=60s\n'
[ $rc -eq 0 ] || fail "met: exit $rc: $(cat "$TMP/met.err")"
[ "$(keys met)" = "[16, 60000000000, 100.0, 0]" ] || fail "met: latency keys $(keys met), expected depth 16"
[ "$(J met "j['jobs'][0]['read']['total_ios'] < 16384")" = True ] ||
	fail "met: the search found its depth but the job ran on to its size"
echo "ok: a target every depth meets: depth 16 = iodepth, the job ends once found"

run metrun '[j]\nioengine=null\nrw=randread\nbs=4k\niodepth=16\nsize=16m\nlatency_target=60s\nlatency_run=1\n'
[ $rc -eq 0 ] || fail "metrun: exit $rc: $(cat "$TMP/metrun.err")"
[ "$(J metrun "j['jobs'][0]['latency_depth']")" = 16 ] || fail "latency_run=1: depth $(J metrun "j['jobs'][0]['latency_depth']")"
[ "$(J metrun "j['jobs'][0]['read']['total_ios']")" = 4096 ] || fail "latency_run=1: the job stopped before its size"
echo "ok: latency_run=1 keeps the job running to its size"

# a target no I/O meets: every I/O takes at least 2 ms (the null device's timer)
run never '[j]\nfilename=@null,delay_us=2000\nrw=randread\nbs=4k\niodepth=8\nsize=1m\nlatency_target=100us\n'
[ $rc -eq 1 ] || fail "never, percentile 100: exit $rc, expected 1 (the job failed): $(cat "$TMP/never.err")"
grep -q "above latency_target=100 us at queue depth 1" "$TMP/never.err" || fail "never: no line says why: $(cat "$TMP/never.err")"
[ "$(J never "j['jobs'][0]['error']")" = 110 ] || fail "never: error $(J never "j['jobs'][0]['error']"), expected ETIMEDOUT"
[ "$(J never "j['jobs'][0]['latency_depth']")" = 1 ] || fail "never: depth $(J never "j['jobs'][0]['latency_depth']")"
run never99 '[j]\nfilename=@null,delay_us=2000\nrw=randread\nbs=4k\niodepth=8\nsize=256k\nlatency_target=100us\nlatency_percentile=99\n'
[ $rc -eq 0 ] || fail "never, percentile 99: exit $rc: $(cat "$TMP/never99.err")"
[ "$(keys never99)" = "[1, 100000, 99.0, 0]" ] || fail "never99: latency keys $(keys never99)"
[ "$(J never99 "j['jobs'][0]['iodepth_level']['1']")" = 100.0 ] || fail "never99: more than one I/O in flight"
[ "$(J never99 "j['jobs'][0]['read']['total_ios']")" = 64 ] || fail "never99: the job did not finish its size"
echo "ok: a target no I/O meets: ETIMEDOUT at depth 1 (percentile 100), depth 1 kept (99)"

# deeper queues wait behind a device queue of 2: whatever depth each lock mode sustains,
# it is one the search may reach, and both renderings say the same
for mode in $(rq_modes); do
	run "q2-$mode" '[j]\nfilename=@null,depth=2,delay_us=500\nrw=randread\nbs=4k\niodepth=16\nsize=2m\nlatency_target=800us\nlatency_window=50ms\nlatency_percentile=99\n' \
		--lock="$mode" --output-format=normal,json
	[ $rc -eq 0 ] || fail "q2 --lock=$mode: exit $rc: $(cat "$TMP/q2-$mode.err")"
	d=$(python3 - "$TMP/q2-$mode.json" <<'PY'
import json, re, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index('{'):t.rindex('}') + 1])['jobs'][0]
m = re.search(r'latency   : target=(\d+), window=(\d+), percentile=([\d.]+)%, depth=(\d+)', t)
assert m, 'no latency line in the normal output'
assert [j['latency_target'], j['latency_window'], j['latency_percentile']] == [800000, 50000, 99.0], j
assert [int(m.group(1)), int(m.group(2)), float(m.group(3)), int(m.group(4))] == \
    [800000, 50000, 99.0, j['latency_depth']], m.group(0)
print(j['latency_depth'])
PY
	) || fail "q2 --lock=$mode: the latency keys disagree (above)"
	[ "$d" -ge 1 ] && [ "$d" -le 16 ] || fail "q2 --lock=$mode: depth $d outside 1..16"
	echo "ok: --lock=$mode: depth $d under an 800 us p99 target"
done

# fio finds the same depth for the target every depth meets (a window: fio judges an
# empty one as a failure, see engine/lattarget.c)
if command -v fio >/dev/null; then
	printf '[j]\nioengine=null\nrw=randread\nbs=4k\niodepth=16\nsize=64g\nlatency_target=60s\nlatency_window=20ms\n' >"$TMP/fio.fio"
	fio --output-format=json --output="$TMP/fio.json" "$TMP/fio.fio" >/dev/null 2>&1 || fail "fio failed"
	run rqfio "$(cat "$TMP/fio.fio")\n"
	[ $rc -eq 0 ] || fail "rqfio: exit $rc: $(cat "$TMP/rqfio.err")"
	[ "$(keys rqfio)" = "$(json "$TMP/fio.json" "[j['jobs'][0][k] for k in ('latency_depth', 'latency_target', 'latency_percentile', 'latency_window')]")" ] ||
		fail "fio: $(json "$TMP/fio.json" "j['jobs'][0]['latency_depth']"), rqlock: $(keys rqfio)"
	echo "ok: fio 3.33 agrees: $(keys rqfio)"
else
	echo "fio not installed: the cross-check with fio is skipped"
fi
echo "test_latency_target: ok"
