#!/usr/bin/env bash
# test_sweep_scaling: `sweep --scaling` (issue 17): the axes come from the
# machine (W = 1, 2, 4, ... up to its CPUs; D = W and D = 1; every lock
# primitive rqlock has), a machine with few CPUs gets a plain note of what
# the run cannot show, more workers than CPUs a warning, and the plot of
# IOPS against workers per mode and primitive is made.  jobs/lock-scaling.fio
# also parses under real fio (when installed).
. "$(dirname "$0")/lib.sh"
need python3
S=$SRCDIR/scripts
out=$TMP/runs
ncpu=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
want_w=$(python3 -c "
n = min($ncpu, 64); w, ws = 1, []
while w < n: ws.append(w); w *= 2
print(ws + [n])")

"$S/sweep" --rqlock "$RQLOCK" --out "$out" --id s --scaling --modes per-queue --runtime 0.3 --repeat 1 \
	>"$TMP/s.out" 2>"$TMP/s.err" || fail "sweep --scaling: $(tail -3 "$TMP/s.err")"
m=$out/s/manifest.json
[ "$(json "$m" 'j["axes"]["workers"]')" = "$want_w" ] || fail "workers $(json "$m" 'j["axes"]["workers"]'), not $want_w"
[ "$(json "$m" 'j["axes"]["pairs"]')" = "D=1 or D=W" ] || fail "pairs: $(json "$m" 'j["axes"]["pairs"]')"
[ "$(json "$m" '[x["copy"] for x in j["jobfiles"]]')" = "['lock-scaling.fio']" ] || fail "job files: $(json "$m" 'j["jobfiles"]')"
types=$("$RQLOCK" run --lock-type=? x.fio 2>&1 | sed -n 's/.*unknown lock type (\(.*\))/\1/p' | tr '|' ' ')
[ -n "$types" ] || fail "rqlock does not list its lock types"
[ "$(json "$m" '" ".join(j["lock_types"])')" = "$types" ] || fail "lock types $(json "$m" 'j["lock_types"]'), not $types"
python3 - "$out/s/summary.csv" "$want_w" "$types" <<'PY' || fail "summary.csv of the scaling sweep"
import ast, csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ws, types = ast.literal_eval(sys.argv[2]), sys.argv[3].split()
want = {(t, d, w) for t in types for w in ws for d in {1, w}}
got = {(r["primitive"], int(r["drives"]), int(r["workers"])) for r in rows}
assert got == want, (sorted(got ^ want))
assert all(r["status"] == "ok" and float(r["iops"]) > 0 for r in rows), rows
PY
if [ "$ncpu" -lt 16 ]; then
	grep -q "note: this machine gives the sweep $ncpu CPUs.*cannot show.*ticket-lock collapse.*global lock's plateau" "$TMP/s.err" ||
		fail "no plain note of what $ncpu CPUs cannot show: $(head -3 "$TMP/s.err")"
	[ "$(json "$m" 'any("cannot show" in n for n in j["notes"])')" = True ] || fail "the note is not in the manifest"
fi
grep -q 'warning: W=' "$TMP/s.err" && fail "a warning of oversubscription with W <= CPUs"

# more workers than CPUs: a warning, on stderr and in the manifest
"$S/sweep" --rqlock "$RQLOCK" --out "$out" --id o --scaling --workers 1,$((ncpu + 1)) --modes per-queue \
	--lock-types ttas --runtime 0.3 --repeat 1 >/dev/null 2>"$TMP/o.err" || fail "sweep --workers: $(tail -3 "$TMP/o.err")"
grep -q "warning: W=$((ncpu + 1)) workers on $ncpu CPUs: more workers than CPUs" "$TMP/o.err" ||
	fail "no oversubscription warning: $(head -3 "$TMP/o.err")"

"$S/compare" --format json "$out/s" | grep -q '"D=1: W=2 vs W=1"' || [ "$ncpu" -lt 2 ] || fail "compare: no D=1 scaling column"
if command -v gnuplot >/dev/null; then
	"$S/plot" "$out/s" >"$TMP/plot.out" || fail "plot"
	[ "$(head -c 4 "$out/s/plots/lock-scaling-scaling.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
		fail "no lock-scaling-scaling.png: $(cat "$TMP/plot.out")"
	grep -q '<svg' "$out/s/plots/lock-scaling-scaling.svg" || fail "no lock-scaling-scaling.svg"
	for t in $types; do
		grep -q "per-queue/$t" "$out/s/plots/lock-scaling-scaling.gp" || fail "the plot has no per-queue/$t curve"
	done
else
	echo "note: gnuplot is not installed; the plot was not made"
fi

if command -v fio >/dev/null; then
	envs=(QD=16 RUNTIME=1 PER_DRIVE=1)
	for n in $(seq 0 63); do envs+=("DISK$n=/dev/null"); done
	env "${envs[@]}" fio --parse-only "$SRCDIR/jobs/lock-scaling.fio" >"$TMP/fio.out" 2>&1 ||
		fail "fio --parse-only jobs/lock-scaling.fio: $(tail -3 "$TMP/fio.out")"
fi
echo "PASS"
