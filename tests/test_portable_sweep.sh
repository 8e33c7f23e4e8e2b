#!/usr/bin/env bash
# test_portable_sweep: `rqlock sweep --portable OUT` (issue 28) runs the
# lock-scaling set with the binary and a POSIX shell only: no python3 on
# its PATH.  Axes from the machine, --budget choosing runtime and repeats,
# a run store that sweep --summarize, compare and plot read back; bad
# options: one line, exit 2, nothing written.
. "$(dirname "$0")/lib.sh"
need python3
# a PATH with the shell tools the script uses and no Python
bin=$TMP/bin
mkdir -p "$bin"
for t in nproc getconf grep sed tr wc awk sort uniq date basename mkdir mv rm cat tail head uname sha256sum cut; do
	p=$(command -v "$t") && ln -s "$p" "$bin/$t"
done
[ -e "$bin/python3" ] && fail "python3 leaked into the test's PATH"
out=$TMP/store

# bad input: nothing written
PATH=$bin "$RQLOCK" sweep --portable "$out" --budget soon >"$TMP/bad.out" 2>"$TMP/bad.err"
[ $? -eq 2 ] || fail "--budget soon: exit not 2"
[ "$(wc -l <"$TMP/bad.err")" -eq 1 ] || fail "--budget soon: not one line: $(cat "$TMP/bad.err")"
grep -q -- "--budget soon" "$TMP/bad.err" || fail "the line does not name the option: $(cat "$TMP/bad.err")"
[ -e "$out" ] && fail "--budget soon wrote $out"
PATH=$bin "$RQLOCK" sweep --portable 2>"$TMP/bad2.err" && fail "--portable without OUT ran"
PATH=$bin "$RQLOCK" sweep --portable "$out" --workers 0 2>"$TMP/bad3.err" && fail "--workers 0 ran"
[ -e "$out" ] && fail "--workers 0 wrote $out"

# the set, small: W = 1,2 (or what the machine has), two modes, one primitive
PATH=$bin "$RQLOCK" sweep --portable "$out" --budget 8 --workers 1,2 --modes global,per-queue --lock-types ttas \
	>"$TMP/p.out" 2>"$TMP/p.err" || fail "sweep --portable: $(tail -3 "$TMP/p.err")"
[ "$(tail -1 "$TMP/p.out")" = "$out" ] || fail "stdout does not end with the store: $(cat "$TMP/p.out")"
m=$out/manifest.json
[ "$(json "$m" 'j["status"]')" = done ] || fail "status $(json "$m" 'j["status"]')"
[ "$(json "$m" 'j["axes"]["workers"]')" = "[1, 2]" ] || fail "workers $(json "$m" 'j["axes"]["workers"]')"
rep=$(json "$m" 'j["axes"]["repeat"]')
rt=$(json "$m" 'j["axes"]["runtime"]')
# 6 points x repeats x (runtime + 0.5 s to start) within the budget, runtime >= 0.5 s
python3 -c "import sys; r, t = $rep, $rt; sys.exit(not (r >= 1 and t >= 0.5 and 6 * r * (t + 0.5) <= 8 * 1.05))" ||
	fail "--budget 8 chose $rep repeats of $rt s"
n=$(ls "$out"/json/*.json | grep -vc meta) || true
[ "$n" -eq $((6 * rep)) ] || fail "$n point files, not $((6 * rep))"
cmp -s "$out/jobs/lock-scaling.fio" "$SRCDIR/jobs/lock-scaling.fio" || fail "the job file in the store is not jobs/lock-scaling.fio"
cmp -s "$out/run.sh" "$SRCDIR/scripts/portable-sweep.sh" || fail "run.sh is not scripts/portable-sweep.sh"
# oversubscription warns
PATH=$bin "$RQLOCK" sweep --portable "$TMP/over" --runtime 0.2 --repeat 1 --workers 128 --modes per-queue \
	--lock-types ttas >/dev/null 2>"$TMP/over.err" && fail "--workers 128 ran (the job file has 64 drives)"
ncpu=$(nproc)
PATH=$bin "$RQLOCK" sweep --portable "$TMP/over" --runtime 0.2 --repeat 1 --workers $((ncpu + 1)) --modes per-queue \
	--lock-types ttas >/dev/null 2>"$TMP/over.err" || fail "oversubscribed run: $(tail -2 "$TMP/over.err")"
grep -q "warning: W=$((ncpu + 1)) workers on $ncpu CPUs" "$TMP/over.err" || fail "no oversubscription warning"

# home: compare (which summarizes the store first) and plot read it
"$SRCDIR/scripts/compare" "$out" >"$TMP/c.out" 2>"$TMP/c.err" || fail "compare: $(tail -3 "$TMP/c.err")"
[ -s "$out/summary.csv" ] || fail "compare did not summarize the store"
grep -q "lock-scaling: scaling" "$TMP/c.out" || fail "compare has no scaling table: $(head -20 "$TMP/c.out")"
tr '\n' ' ' <"$TMP/c.out" | grep -q "portable sweep" || fail "compare does not say the run was portable"
# the prediction (issue 33): the global lock's W=2 cell, measured / predicted (ratio), and the model
# that predicted it; with 2 CPUs the workers contend, so releases leave waiters and the model counts the gaps
"$SRCDIR/scripts/compare" --wide "$out" >"$TMP/c.wide" 2>"$TMP/c.err" || fail "compare --wide: $(tail -3 "$TMP/c.err")"
pred=$(grep -E '^global +D=1 ' "$TMP/c.wide" | grep -E ' / [0-9.]+[kMG]? \([0-9]+\.[0-9]{2}\)( \*)?$') ||
	fail "no global D=1 prediction with a W=2 ratio: $(grep -A4 '^column ' "$TMP/c.wide")"
if [ "$(nproc)" -ge 2 ]; then
	echo "$pred" | grep -q ' holds+gaps ' || fail "the W=2 prediction does not count the gaps: $pred"
fi
if command -v gnuplot >/dev/null; then
	"$SRCDIR/scripts/plot" "$out" >"$TMP/pl.out" 2>&1 || fail "plot: $(tail -3 "$TMP/pl.out")"
	[ -s "$out/plots/lock-scaling-scaling.png" ] || fail "no scaling plot: $(cat "$TMP/pl.out")"
fi
# resume: a finished set runs nothing again
PATH=$bin "$RQLOCK" sweep --portable "$out" --budget 8 --workers 1,2 --modes global,per-queue --lock-types ttas \
	>/dev/null 2>"$TMP/r.err" || fail "resume: $(tail -2 "$TMP/r.err")"
grep -q '^\[' "$TMP/r.err" && fail "the resumed set ran points again: $(grep '^\[' "$TMP/r.err" | head -2)"
exit 0
