#!/usr/bin/env bash
# Steady state (ss, ss_dur, ss_ramp) side by side with fio 3.33 (issue
# 34): each job runs under fio and under rqlock, both on the null engine
# at a fixed rate_iops (a rate that is steady by construction), and the
# "steadystate" objects must have fio's keys in fio's order (the object's
# and its data's), the same criterion string, window, attained flag and
# array lengths, and fio's normal-output line.  The attaining jobs run the
# rqlock side once per lock mode.
#
# Timing is asserted only as the semantics bound it, with wide margins (a
# sanitizer build on a shared machine is slow): a job judged steady
# cannot end before its window was filled - ss_dur - 1 s after its start
# (its first sample comes within the first second), or ss_ramp + ss_dur
# with ss_ramp (its first counted sample is a second past ss_ramp) - and
# is attained at the window's first verdict, so it ends far before its
# 60 s runtime; a job that never attains runs its runtime out.  The
# difference to fio's end is printed (both should end within a second
# of each other: they are judged by the same clock and rules).  Before
# issue 34 rqlock accepted ss as inert: no "steadystate" object, every
# job ran its runtime out.  Skips (77) without fio 3.33.
. "$(dirname "$0")/lib.sh"
need python3
need_fio 3.33
cd "$TMP" || fail "cd $TMP"

job() {	# job NAME OPTIONS...: a job file NAME.fio on the null engine
	local name=$1
	shift
	{
		printf '[global]\nioengine=null\nsize=1g\nrw=randread\ntime_based\n'
		printf '[%s]\n' "$name"
		printf '%s\n' "$@"
	} >"$name.fio"
}

# run TOOL NAME [LOCK]: TOOL's JSON and normal output of NAME.fio in NAME.TOOL[.LOCK].{json,txt}
run() {
	local tool=$1 name=$2 lock=${3:-} out="$2.$1${3:+.$3}"
	if [ "$tool" = fio ]; then
		fio --output-format=json,normal "$name.fio" >"$out.all" 2>"$out.err" ||
			fail "$name: fio failed: $(cat "$out.err")"
	else
		"$RQLOCK" run --lock="$lock" --output-format=json,normal "$name.fio" >"$out.all" 2>"$out.err" ||
			fail "$name: rqlock --lock=$lock failed: $(cat "$out.err")"
		[ -s "$out.err" ] && fail "$name: rqlock wrote to stderr: $(cat "$out.err")"
	fi
	# the JSON object first, the normal text after it
	python3 - "$out" <<'PY' || fail "$out: cannot split the output"
import sys
out = sys.argv[1]
s = open(out + ".all").read()
i = s.index("\n}\n") + 3
open(out + ".json", "w").write(s[s.index("{"):i])
open(out + ".txt", "w").write(s[i:])
PY
}

# compare NAME FIO RQ ATTAINED LO_MS HI_MS: the two runs' steadystate objects
compare() {
	python3 - "$@" <<'PY' || fail "$1: rqlock ($3) differs from fio 3.33 (above)"
import json, re, sys
name, f, r, attained, lo, hi = sys.argv[1:7]
attained, lo, hi = int(attained), int(lo), int(hi)
bad = []
def load(p):
    jobs = json.load(open(p + ".json"))["jobs"]
    if len(jobs) != 1 or "steadystate" not in jobs[0]:
        bad.append("%s: %d jobs, steadystate %s" % (p, len(jobs), [("steadystate" in j) for j in jobs]))
        return None, None
    return jobs[0], open(p + ".txt").read()
(fj, ft), (rj, rt) = load(f), load(r)
if bad:
    sys.exit("\n".join(bad))
fs, rs = fj["steadystate"], rj["steadystate"]
if list(fs) != list(rs) or list(fs["data"]) != list(rs["data"]):
    bad.append("keys: fio %s %s, rqlock %s %s" % (list(fs), list(fs["data"]), list(rs), list(rs["data"])))
if list(fj)[-1] != "steadystate" or list(rj)[-1] != "steadystate":
    bad.append("steadystate is not the job's last key")
for k in ("ss", "duration", "attained"):
    if fs[k] != rs[k]:
        bad.append("%s: fio %r, rqlock %r" % (k, fs[k], rs[k]))
if rs["attained"] != attained:
    bad.append("attained %d, want %d" % (rs["attained"], attained))
for s in (fs, rs):
    if not (len(s["data"]["iops"]) == len(s["data"]["bw"]) == s["duration"]):
        bad.append("%d samples, duration %d" % (len(s["data"]["iops"]), s["duration"]))
    if not re.fullmatch(r"-?\d+\.\d{6}%?", s["criterion"]):
        bad.append("criterion %r is not fio's %%f" % s["criterion"])
    if s["data"]["iops_mean"] != sum(s["data"]["iops"]) // s["duration"]:
        bad.append("iops_mean %d is not the window's" % s["data"]["iops_mean"])
line = r"  steadystate  : attained=(yes|no), bw=\S+ \(\S+\), iops=\d+, (iops|bw)( slope| mean dev)=-?\d+\.\d{3}%?"
fl = [l for l in ft.splitlines() if "steadystate" in l]
rl = [l for l in rt.splitlines() if "steadystate" in l]
if len(fl) != 1 or len(rl) != 1 or not re.fullmatch(line, rl[0]) or \
   re.fullmatch(line, fl[0]).group(1, 2, 3) != re.fullmatch(line, rl[0]).group(1, 2, 3):
    bad.append("normal output: fio %s, rqlock %s" % (fl, rl))
ms = [j["read"]["runtime"] for j in (fj, rj)]
for who, m in zip(("fio", "rqlock"), ms):
    if not lo <= m <= hi:
        bad.append("%s ran %d ms, the semantics say %d..%d" % (who, m, lo, hi))
if bad:
    sys.exit("\n".join(bad))
print("ok: %s (%s): %s attained=%d, ran fio %d ms, rqlock %d ms (%+d)" %
      (name, r, rs["ss"], rs["attained"], ms[0], ms[1], ms[1] - ms[0]))
PY
}

modes=$(rq_modes)
[ -n "$modes" ] || fail "no lock modes from rqlock --list"
set -- $modes
slack=8000	# ms a loaded machine may add: the upper bounds only tell steady state from runtime

# steady: ss=iops:10% over 3 s at 100 IOPS, attained at its third sample, under every lock mode
job steady rate_iops=100 runtime=60 ss=iops:10% ss_dur=3
run fio steady
for m in $modes; do
	run rqlock steady "$m"
	compare steady steady.fio "steady.rqlock.$m" 1 2000 $((3000 + slack))
done
# group: two clones at 50 IOPS judged together with group_reporting, by the slope, after ss_ramp
job group rate_iops=50 runtime=60 numjobs=2 group_reporting ss=iops_slope:20% ss_dur=3 ss_ramp=1
run fio group
run rqlock group "$1"
compare group group.fio "group.rqlock.$1" 1 4000 $((5000 + slack))
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["jobs"][0]["steadystate"]["data"]
sys.exit(0 if s["iops_mean"] > 75 else "iops_mean %d: the group was not summed (50 IOPS a clone)" % s["iops_mean"])
' group.rqlock.$1.json || fail "group: $(cat group.rqlock.$1.json | head -1)"
# never: a bandwidth that never deviates less than 0, and a slope never below 0: runtime ends them
job never rate_iops=100 runtime=3 ss=bw:0 ss_dur=2
run fio never
run rqlock never "${2:-$1}"
compare never never.fio "never.rqlock.${2:-$1}" 0 2950 $((3000 + slack))
job flat rate_iops=100 runtime=3 ss=iops_slope:0 ss_dur=2
run fio flat
run rqlock flat "${3:-$1}"
compare flat flat.fio "flat.rqlock.${3:-$1}" 0 2950 $((3000 + slack))
# short: a window of 8 s in a 2 s run is never full: zeros after the samples
job short rate_iops=100 runtime=2 ss=iops:10% ss_dur=8
run fio short
run rqlock short "${4:-$1}"
compare short short.fio "short.rqlock.${4:-$1}" 0 1950 $((2000 + slack))
python3 -c '
import json, sys
for p in sys.argv[1:]:
    v = json.load(open(p))["jobs"][0]["steadystate"]["data"]["iops"]
    if v[-5:] != [0] * 5 or not v[0]:
        sys.exit("%s: %s" % (p, v))
' short.fio.json short.rqlock.${4:-$1}.json || fail "short: the window is not samples then zeros"
# sub: ss_dur=1500ms is a window of 1 s, steady at its first sample
job sub rate_iops=100 runtime=60 ss=iops:10% ss_dur=1500ms
run fio sub
run rqlock sub "$1"
compare sub sub.fio "sub.rqlock.$1" 1 0 $((1000 + slack))

# a reporting group whose jobs' steady state differs: fio rejects it, rqlock says so in one line
job mixed rate_iops=100 runtime=1 ss=iops:10% ss_dur=2
printf '[other]\nrate_iops=100\nruntime=1\n' >>mixed.fio
fio mixed.fio >/dev/null 2>&1 && fail "fio 3.33 ran mixed.fio: the test's premise is wrong"
"$RQLOCK" run mixed.fio >mixed.out 2>mixed.err
rc=$?
[ $rc -eq 2 ] || fail "mixed.fio: rqlock exit $rc, want 2"
[ -s mixed.out ] && fail "mixed.fio: rqlock wrote a report"
[ "$(wc -l <mixed.err)" -eq 1 ] && grep -q '^mixed.fio:[0-9]*: job .other.: .*reporting group' mixed.err ||
	fail "mixed.fio: not one line naming the file, line and job: $(cat mixed.err)"
echo "ok: mixed: $(cat mixed.err)"
echo "test_fio_steadystate: ok"
