#!/usr/bin/env bash
# test_sweep_kill: a sweep whose runner is SIGKILLed (issue 14, "killed
# runner") marks that point failed, with the signal, keeps going, leaves no
# partial JSON, and a resume neither redoes finished points nor, without
# --retry-failed, the failed one; --retry-failed redoes only it.  A sweep
# that is itself SIGKILLed takes its runner with it, and its resume removes
# the partial files and finishes the run.
. "$(dirname "$0")/lib.sh"
need python3
need pgrep
S=$SRCDIR/scripts
out=$TMP/runs
job=$SRCDIR/jobs/multi-drive-scaling.fio
common=(--rqlock "$RQLOCK" --out "$out" --modes global,per-queue --drives 1 --workers 1 --repeat 1)

# the rqlock runner of sweep $1 (not its probes: the runner writes a point's
# json/*.json.tmp), once it runs
runner_of() {
	local p
	for _ in $(seq 1 300); do
		p=$(pgrep -P "$1" -f 'rqlock.* run .*/json/[^ ]*\.json\.tmp' | head -1)
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.1
	done
	return 1
}

# 1. the first point's runner is killed; the second point still runs
"$S/sweep" "${common[@]}" --runtime 3 --id k "$job" >"$TMP/k.out" 2>"$TMP/k.err" &
pid=$!
r=$(runner_of "$pid") || fail "no runner appeared: $(tail -3 "$TMP/k.err")"
kill -KILL "$r"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 1 ] || fail "a sweep with a killed runner exited $rc, not 1: $(tail -3 "$TMP/k.err")"
run=$out/k
grep -q 'failed (killed by SIGKILL)' "$TMP/k.err" || fail "the failure was not reported: $(cat "$TMP/k.err")"
[ "$(json "$run/manifest.json" 'j["status"]')" = "done, 1 runs failed" ] || fail "manifest status $(json "$run/manifest.json" 'j["status"]')"
ls "$run"/json/*.tmp "$run"/*.tmp >/dev/null 2>&1 && fail "partial files left: $(ls "$run"/json/*.tmp)"
killed=$(grep -l '"exit": -9' "$run"/json/*.meta.json) || fail "no meta file records exit -9"
[ "$(echo "$killed" | wc -l)" -eq 1 ] || fail "more than one point recorded as killed: $killed"
[ "$(json "$killed" 'j["ok"] is False and j["why"]')" = "killed by SIGKILL" ] || fail "$killed: $(cat "$killed")"
[ ! -e "${killed%.meta.json}.json" ] || fail "the killed point has a JSON"
python3 - "$run/summary.csv" <<'PY' || fail "summary.csv after a killed runner"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
st = sorted(r["status"] for r in rows)
assert st == ["failed: killed by SIGKILL", "ok"], st
ok = [r for r in rows if r["status"] == "ok"][0]
assert float(ok["iops"]) > 0, ok
PY
"$S/compare" "$run" >"$TMP/cmp" || fail "compare of a run with a failed point"
stat -c '%n %i %Y' "$run"/json/*.json | sort >"$TMP/before"

# 2. resume: nothing to redo without --retry-failed
"$S/sweep" --resume "$run" >/dev/null 2>"$TMP/r1.err" || fail "resume: $(tail -3 "$TMP/r1.err")"
grep -q '2 of 2 runs already' "$TMP/r1.err" || fail "resume redid something: $(cat "$TMP/r1.err")"
stat -c '%n %i %Y' "$run"/json/*.json | sort | cmp -s - "$TMP/before" || fail "resume touched a point file"

# 3. --retry-failed redoes the killed point only
"$S/sweep" --resume "$run" --retry-failed >/dev/null 2>"$TMP/r2.err" || fail "retry: $(tail -3 "$TMP/r2.err")"
[ "$(json "$killed" 'j["ok"]')" = True ] || fail "the killed point was not redone"
[ -s "${killed%.meta.json}.json" ] || fail "the redone point has no JSON"
kb=$(basename "${killed%.meta.json}")
grep -v "/$kb\." "$TMP/before" >"$TMP/before3"
[ -s "$TMP/before3" ] || fail "no finished point to compare"
stat -c '%n %i %Y' "$run"/json/*.json | sort | grep -v "/$kb\." | cmp -s - "$TMP/before3" || fail "--retry-failed redid a finished point"
[ "$(json "$run/manifest.json" 'j["status"]')" = done ] || fail "status after retry: $(json "$run/manifest.json" 'j["status"]')"

# 4. the sweep itself is SIGKILLed: its runner dies with it; the resume
#    removes the partial JSON and finishes
"$S/sweep" "${common[@]}" --runtime 3 --id s "$job" >/dev/null 2>"$TMP/s.err" &
pid=$!
r=$(runner_of "$pid") || fail "no runner appeared: $(tail -3 "$TMP/s.err")"
sleep 0.5
kill -KILL "$pid"
wait "$pid" 2>/dev/null
for _ in $(seq 1 50); do kill -0 "$r" 2>/dev/null || break; sleep 0.1; done
kill -0 "$r" 2>/dev/null && fail "the runner $r outlived its killed sweep"
[ "$(json "$out/s/manifest.json" 'j["status"]')" = running ] || fail "a killed sweep's manifest: $(json "$out/s/manifest.json" 'j["status"]')"
: >"$out/s/json/planted-r1.json.tmp"     # as a runner killed mid-write would leave
"$S/sweep" --resume "$out/s" >/dev/null 2>"$TMP/s2.err" || fail "resume after a killed sweep: $(tail -3 "$TMP/s2.err")"
grep -q 'removing json/planted-r1.json.tmp' "$TMP/s2.err" || fail "the partial file was not reported: $(cat "$TMP/s2.err")"
ls "$out"/s/json/*.tmp >/dev/null 2>&1 && fail "partial files remain after resume"
[ "$(json "$out/s/manifest.json" 'j["status"] + " " + j["resumed"][-1]["previous_status"]')" = "done running" ] ||
	fail "manifest after resume: $(json "$out/s/manifest.json" 'j["status"]')"
[ "$(ls "$out"/s/json/*.json | grep -vc meta)" -eq 2 ] || fail "the resumed sweep did not finish both points"

# 5. two sweeps on one run: the second is refused.  The first is stood in
#    for by holding RUN/.lock here (flock(2), as the sweep takes it), so the
#    check does not depend on how long a sweep runs.
if command -v flock >/dev/null; then
	exec 9>>"$run/.lock"
	flock -n 9 || fail "cannot take $run/.lock"
	rc=0
	"$S/sweep" --resume "$run" >/dev/null 2>"$TMP/t2.err" || rc=$?
	exec 9>&-
	[ "$rc" -eq 2 ] && grep -q 'being run by another sweep' "$TMP/t2.err" ||
		fail "a second sweep on a locked run: rc $rc, $(cat "$TMP/t2.err")"
	"$S/sweep" --resume "$run" >/dev/null 2>"$TMP/t3.err" || fail "resume once the lock is free: $(tail -2 "$TMP/t3.err")"
fi
echo "PASS"
