#!/usr/bin/env bash
# test_sweep: scripts/sweep, scripts/compare and scripts/plot on tiny sweeps of
# null devices: the run store (a JSON per point and repeat that parses, the
# manifest, summary.csv's columns), an interrupted sweep resumed without
# redoing finished points, the lock wait share from lockstat and its
# contention-share fallback, the comparison tables, and the plots (skipped,
# with a note, when gnuplot is missing).
. "$(dirname "$0")/lib.sh"
need python3
S=$SRCDIR/scripts
out=$TMP/runs
job=$SRCDIR/jobs/multi-drive-scaling.fio
common=(--rqlock "$RQLOCK" --out "$out" --modes global,per-queue --drives 1,2 --workers 1 --runtime 1)

# 1. a tiny sweep: 2 modes x 2 drive counts x 1 worker, 1 s, once
"$S/sweep" "${common[@]}" --repeat 1 --id a "$job" >"$TMP/a.out" 2>"$TMP/a.err" ||
	fail "sweep a: $(tail -3 "$TMP/a.err")"
run=$out/a
[ "$(cat "$TMP/a.out")" = "$run" ] || fail "sweep a printed '$(cat "$TMP/a.out")', not the run directory"
grep -q 'ETA' "$TMP/a.err" || fail "no progress line with an ETA"
n=$(ls "$run"/json/*-r1.json | wc -l)
[ "$n" -eq 4 ] || fail "expected 4 point JSONs, found $n"
for f in "$run"/json/*-r1.json; do
	[ "$(json "$f" 'sum(x["read"]["iops"] for x in j["jobs"]) > 0 and j["rqlock"]["lock_mode"] in ("global","per-queue")')" = True ] ||
		fail "$f: no IOPS or no rqlock.lock_mode"
done
m=$run/manifest.json
[ "$(json "$m" 'j["status"]')" = done ] || fail "manifest status $(json "$m" 'j["status"]')"
[ "$(json "$m" 'j["machine"]["cpus"] > 0 and bool(j["machine"]["kernel"]) and "command" in j and "revision" in j["git"] and "block_devices" in j["machine"]')" = True ] ||
	fail "manifest lacks machine, command or git"
[ "$(json "$m" 'j["modes"]')" = "['global', 'per-queue']" ] || fail "modes $(json "$m" 'j["modes"]')"
[ -f "$run/jobs/multi-drive-scaling.fio" ] || fail "the job file is not copied into the run"
head -1 "$run/summary.csv" | grep -qx 'run,point,jobfile,job,mode,primitive,drives,workers,host,cores,var_QD,repeats,iops,iops_min,iops_max,iops_reps,bw_bytes,lat_p50_us,lat_p99_us,lat_p99_us_min,lat_p99_us_max,lat_p99_us_reps,lat_p999_us,lat_max_us,int_p99_us,int_p99_us_min,int_p99_us_max,int_p99_us_reps,int_p9999_us,int_max_us,late_share,late_share_reps,slat_share,slat_share_reps,slat_mean_us,lat_kind,lock_wait_share,contention_share,holder_wait_ms,floppy_wait_share,merges,bg_cpu,bg_cpu_reps,steal,mhz_spread,hold_ns_per_io,hold_locks,handoff_ns_per_io,handoff_full_ns_per_io,gap_ns_per_io,gap_full_ns_per_io,release_ns_per_io,status' ||
	fail "summary.csv header: $(head -1 "$run/summary.csv")"
python3 - "$run/summary.csv" <<'PY' || fail "summary.csv rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, rows
assert {(r["mode"], r["drives"]) for r in rows} == {(m, d) for m in ("global", "per-queue") for d in ("1", "2")}
for r in rows:
    assert float(r["iops"]) > 0 and float(r["bw_bytes"]) > 0, r
    assert float(r["lat_p99_us"]) >= float(r["lat_p50_us"]) >= 0, r
    assert r["lat_kind"] == "lat" and r["primitive"] == "ttas" and r["workers"] == "1" and r["var_QD"] == "16", r
    assert r["contention_share"] != "" and r["merges"] != "" and r["status"] == "ok", r
PY

# 2. interrupted midway, then resumed: finished runs are not redone
"$S/sweep" "${common[@]}" --repeat 2 --id b "$job" >"$TMP/b.out" 2>"$TMP/b.err" &
pid=$!
for _ in $(seq 1 300); do
	[ "$(ls "$out"/b/json/*-r1.json 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.1
done
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 130 ] || fail "interrupted sweep exited $rc, not 130: $(tail -3 "$TMP/b.err")"
[ "$(json "$out/b/manifest.json" 'j["status"]')" = interrupted ] || fail "manifest not marked interrupted"
ls "$out"/b/json/*.tmp >/dev/null 2>&1 && fail "a partial JSON was left behind"
done_before=$(ls "$out"/b/json/*.json | grep -v meta | wc -l)
[ "$done_before" -ge 2 ] && [ "$done_before" -lt 8 ] || fail "interrupted with $done_before of 8 runs done"
stat -c '%n %i %Y' "$out"/b/json/*.json | sort >"$TMP/before"
"$S/sweep" --resume "$out/b" >/dev/null 2>"$TMP/b2.err" || fail "resume: $(tail -3 "$TMP/b2.err")"
grep -q "$done_before of 8 runs already" "$TMP/b2.err" || fail "resume did not count the finished runs: $(head -2 "$TMP/b2.err")"
[ "$(ls "$out"/b/json/*.json | grep -v meta | wc -l)" -eq 8 ] || fail "the resumed sweep did not finish all 8 runs"
stat -c '%n %i %Y' "$out"/b/json/*.json | sort | join - "$TMP/before" | awk '$2 != $4 || $3 != $5 { bad = 1 } END { exit bad }' ||
	fail "a finished run was redone"
[ "$(stat -c '%n %i %Y' "$out"/b/json/*.json | sort | join - "$TMP/before" | wc -l)" -eq "$(wc -l <"$TMP/before")" ] ||
	fail "a finished run disappeared"
[ "$(json "$out/b/manifest.json" 'j["status"] + " " + str(len(j["resumed"]))')" = "done 1" ] || fail "manifest after resume"
python3 - "$out/b/summary.csv" <<'PY' || fail "summary.csv after resume: repeats, median and spread"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, rows
for r in rows:
    assert r["repeats"] == "2", r
    assert float(r["iops_min"]) <= float(r["iops"]) <= float(r["iops_max"]), r
    assert float(r["lat_p99_us_min"]) <= float(r["lat_p99_us"]) <= float(r["lat_p99_us_max"]), r
PY

# 3. lock wait share: from rqlock.lockstat when the JSON has it, else empty
python3 - "$S/sweep" <<'PY' || fail "lock wait share"
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("sweep", sys.argv[1])
m = importlib.util.module_from_spec(importlib.util.spec_from_loader("sweep", loader))
loader.exec_module(m)
base = {"jobs": [{"jobname": "a", "groupid": 0, "job_runtime": 1000}],
        "rqlock": {"workers": 2, "locks": [{"name": "l", "acquisitions": 100, "contentions": 25}],
                   "queues": [{"merges_front": 1, "merges_back": 2}]}}
r = m.run_metrics(base, 2)
assert r["lock_wait_share"] is None and r["contention_share"] == 0.25 and r["merges"] == 3, r
base["rqlock"]["lockstat"] = {"enabled": 1, "elapsed_ns": 10**9,
                              "classes": [{"wait_ns": {"total": 3 * 10**8}}, {"wait_ns": {"total": 10**8}}]}
r = m.run_metrics(base, 2)
assert abs(r["lock_wait_share"] - 0.2) < 1e-9, r
PY

# 4. compare: text and markdown
"$S/compare" "$run" >"$TMP/cmp.txt" || fail "compare (text)"
grep -q 'multi-drive-scaling: IOPS, 1 worker, QD=16' "$TMP/cmp.txt" || fail "compare: no IOPS table: $(head -20 "$TMP/cmp.txt")"
grep -Eq '^1 +[0-9.]+[kMG]? \([01]\.[0-9]{2}\) +[0-9.]+[kMG]? \([01]\.[0-9]{2}\)' "$TMP/cmp.txt" ||
	fail "compare: no row with both modes and ratios"
grep -q '(1.00)' "$TMP/cmp.txt" || fail "compare: no best mode"
"$S/compare" --format markdown --metric iops,p99,contention "$run" "$out/b" >"$TMP/cmp.md" || fail "compare (markdown)"
grep -q '^| drives | global@a | global@b | per-queue@a | per-queue@b |$' "$TMP/cmp.md" ||
	fail "compare: markdown header: $(grep '^| drives' "$TMP/cmp.md" | head -1)"
grep -q '^|---|---:|' "$TMP/cmp.md" || fail "compare: markdown separator"

# 5. plots: PNG and SVG, non-empty
if ! command -v gnuplot >/dev/null; then
	echo "SKIP (plot part): gnuplot is not installed"
	exit 0
fi
"$S/plot" "$run" >"$TMP/plot.out" || fail "plot"
for p in multi-drive-scaling-iops-vs-drives multi-drive-scaling-p99-vs-drives multi-drive-scaling-lock-share; do
	for ext in png svg; do
		f=$run/plots/$p.$ext
		[ -s "$f" ] || fail "no $f"
	done
	[ "$(head -c 4 "$run/plots/$p.png" | od -An -c | tr -d ' ')" = '211PNG' ] || fail "$p.png is not a PNG"
	grep -q '<svg' "$run/plots/$p.svg" || fail "$p.svg is not SVG"
	grep -q "plots/$p.png" "$TMP/plot.out" || fail "plot did not list $p.png"
done
echo "PASS"
