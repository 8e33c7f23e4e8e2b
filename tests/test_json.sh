#!/usr/bin/env bash
# The JSON output parses, has fio's shape plus the rqlock object, and its
# numbers agree with each other.
. "$(dirname "$0")/lib.sh"
need python3
cat >"$TMP/j.fio" <<'JOB'
[global]
ioengine=null
bs=4k
size=64m
iodepth=8
[reader]
rw=randread
[mixed]
rw=randrw
rwmixread=70
numjobs=2
JOB
for mode in global per-queue; do
	"$RQLOCK" run --lock=$mode --workers 2 --output-format=json "$TMP/j.fio" >"$TMP/o.json" 2>"$TMP/err" \
		|| fail "$mode: run failed: $(cat "$TMP/err")"
	python3 - "$TMP/o.json" "$mode" <<'PY' || fail "$mode: JSON check failed"
import json, sys
j = json.load(open(sys.argv[1]))
mode = sys.argv[2]
for k in ("fio version", "timestamp", "jobs", "rqlock"):
    assert k in j, k
assert len(j["jobs"]) == 3, len(j["jobs"])
total = 0
for job in j["jobs"]:
    for k in ("jobname", "groupid", "error", "read", "write"):
        assert k in job, k
    assert job["error"] == 0
    for d in ("read", "write"):
        s = job[d]
        for k in ("io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime", "total_ios", "clat_ns", "lat_ns"):
            assert k in s, (d, k)
        assert s["io_bytes"] == s["total_ios"] * 4096, (s["io_bytes"], s["total_ios"])
        assert s["io_kbytes"] == s["io_bytes"] >> 10
        if s["total_ios"]:
            exp = s["total_ios"] * 1000.0 / s["runtime"]
            assert abs(s["iops"] - exp) <= 0.02 * exp + 1, (s["iops"], exp)
            for lat in ("clat_ns",):      # lat_ns percentiles only with lat_percentiles=1, as fio
                p = s[lat]["percentile"]
                assert "99.000000" in p and "50.000000" in p, p.keys()
                assert s[lat]["min"] <= p["50.000000"] <= s[lat]["max"] * 1.02 + 64
                assert s[lat]["N"] == s["total_ios"]
        total += s["total_ios"]
    assert job["read"]["total_ios"] + job["write"]["total_ios"] == (64 << 20) // 4096
mixed = [x for x in j["jobs"] if x["jobname"] == "mixed"]
assert len(mixed) == 2
r = sum(x["read"]["total_ios"] for x in mixed); w = sum(x["write"]["total_ios"] for x in mixed)
assert 0.6 < r / (r + w) < 0.8, r / (r + w)
rq = j["rqlock"]
assert rq["lock_mode"] == mode and rq["lock_type"] == "ttas" and rq["workers"] == 2
assert rq["bios_submitted"] == rq["bios_completed"] == total
assert len(rq["queues"]) == 3 and len(rq["devices"]) == 3   # one null device per clone, as fio
assert sum(q["bios"] for q in rq["queues"]) == total
locks = rq["locks"]
assert len(locks) == (1 if mode == "global" else 3), locks
assert all(l["acquisitions"] >= 1 and 0 <= l["contentions"] <= l["acquisitions"] for l in locks)
assert all(d["kind"] == "null" for d in rq["devices"])
PY
done
# normal output goes to stdout, diagnostics never do
"$RQLOCK" run "$TMP/j.fio" >"$TMP/n.txt" 2>/dev/null || fail "normal output run failed"
grep -q "reader" "$TMP/n.txt" && grep -q "IOPS=" "$TMP/n.txt" || fail "normal output lacks job lines"
# the clock: the environment's choice is the one reported (tsc only where the TSC is there to use)
RQLOCK_CLOCK=clock_gettime "$RQLOCK" run --output-format=json "$TMP/j.fio" >"$TMP/c.json" 2>/dev/null ||
	fail "RQLOCK_CLOCK=clock_gettime run failed"
[ "$(json "$TMP/c.json" 'j["rqlock"]["clock"]')" = clock_gettime ] || fail "RQLOCK_CLOCK=clock_gettime not used"
if [ "$(uname -m)" = x86_64 ]; then
	RQLOCK_CLOCK=tsc "$RQLOCK" run --output-format=json "$TMP/j.fio" >"$TMP/t.json" 2>/dev/null ||
		fail "RQLOCK_CLOCK=tsc run failed"
	[ "$(json "$TMP/t.json" 'j["rqlock"]["clock"]')" = tsc ] || fail "RQLOCK_CLOCK=tsc not used"
fi
echo "test_json: ok"
