#!/usr/bin/env bash
# Issue 12 end to end: a rate-limited job reports lat_intended_ns (fio's
# shape), late_ios and max_lag_ns; a job without a rate does not; and
# --timeline writes one row per completed I/O whose times are ordered as
# the schedule guarantees (due <= start <= issue <= done: an I/O is never
# built before it is due).  No timing is asserted (tests/test_pace.c
# checks the numbers on a fake clock).
. "$(dirname "$0")/lib.sh"

cat >"$TMP/j.fio" <<'JOB'
[global]
ioengine=io_uring
rw=randread
bs=4k
size=400k
lat_percentiles=1
[paced]
filename=@null0,irqmode=2,delay_us=50
iodepth=4
rate_iops=20000
[free]
filename=@null1
iodepth=4
JOB
"$RQLOCK" run --workers=1 --output-format=json+ --output "$TMP/r.json" --timeline "$TMP/t.csv" "$TMP/j.fio" \
	>"$TMP/out" 2>"$TMP/err" || fail "run failed: $(cat "$TMP/err")"
python3 - "$TMP/r.json" "$TMP/t.csv" <<'PY' || exit 1
import csv, json, sys
j = json.load(open(sys.argv[1]))
jobs = {x["jobname"]: x for x in j["jobs"]}
p, f = jobs["paced"]["read"], jobs["free"]["read"]
def bad(m):
    print("FAIL:", m, file=sys.stderr); sys.exit(1)
li = p.get("lat_intended_ns") or bad("paced job: no lat_intended_ns")
for k in ("min", "max", "mean", "stddev", "N", "percentile", "bins"):
    k in li or bad("lat_intended_ns lacks %s (the shape of lat_ns, json+)" % k)
li["N"] == p["total_ios"] == 100 or bad("N %s, total_ios %s" % (li["N"], p["total_ios"]))
"late_ios" in p and "max_lag_ns" in p or bad("paced job: no late_ios/max_lag_ns")
p["late_ios"] <= p["total_ios"] or bad("late_ios > total_ios")
# the intended latency is never below fio's lat: the due time is never after the build
li["min"] >= 0 and li["max"] >= p["lat_ns"]["max"] or bad("intended max %d < lat max %d" % (li["max"], p["lat_ns"]["max"]))
for k in ("lat_intended_ns", "late_ios", "max_lag_ns"):
    k not in f or bad("job without a rate has %s" % k)
lines = open(sys.argv[2]).read().splitlines()
lines[0].startswith("# rqlock --timeline: lock=global") or bad("timeline's first line: %s" % lines[0])
rows = list(csv.DictReader(lines[1:]))
by = {}
for r in rows:
    by.setdefault(r["job"], []).append(r)
len(by.get("paced", [])) == 100 and len(by.get("free", [])) == 100 or bad("timeline rows %s" % {k: len(v) for k, v in by.items()})
for r in by["paced"]:
    d, s, i, e = (int(r[k]) for k in ("due_ns", "start_ns", "issue_ns", "done_ns"))
    d <= s <= i <= e or bad("paced row out of order: %s" % r)
for r in by["free"]:
    r["due_ns"] == "" or bad("a job without a rate has a due time: %s" % r)
dues = sorted(int(r["due_ns"]) for r in by["paced"])
gaps = {b - a for a, b in zip(dues, dues[1:])}
gaps <= {49999, 50000, 50001} or bad("linear schedule gaps not 1/rate: %s" % sorted(gaps)[:5])
PY
grep -q "lat_intended" "$TMP/out" && fail "json+ run wrote text to stdout"
"$RQLOCK" run --workers=1 "$TMP/j.fio" >"$TMP/txt" 2>"$TMP/err" || fail "text run failed"
grep -q "lat_intended (" "$TMP/txt" && grep -q "late_ios=" "$TMP/txt" && grep -q "lat_intended percentiles" "$TMP/txt" ||
	fail "normal output lacks lat_intended: $(cat "$TMP/txt")"
echo "test_intended: ok"
