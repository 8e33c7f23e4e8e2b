#!/usr/bin/env bash
# Steady state through fio's client/server protocol, rqlock server beside
# fio 3.33's own `fio --server`: one job file of six groups (ss by IOPS
# deviation; a group_reporting pair judged by slope after ss_ramp; two
# clones judged apart by bandwidth; a window that never attains; one that
# never fills; a job without ss), each at a fixed rate_iops on the null
# engine, run by one `fio --client` on both servers at once.  For each job:
# - the client's JSON has the same keys in the same order from both
#   servers (rqlock's "desc" aside), a "steadystate" object exactly where
#   fio's server gives one, with the same keys, ss string, window and
#   attained flag, and as many samples as the window (samples then zeros
#   for the window that never filled);
# - its normal output has the same "steadystate  :" line (attained, the
#   criterion's name and unit) per job;
# - the TS packets (tests/fio_peer.py ssstate) carry the same ss_dur and
#   ss_state bits, and the samples inside the packet.
# Before, rqlock's TS carried no steady state: no "steadystate" object, no
# line, ss_state 0.  No timing is asserted.  Skips (77) without fio 3.33.
. "$(dirname "$0")/lib.sh"
need python3
need_fio 3.33
cd "$TMP" || fail "cd $TMP"
PEER="$SRCDIR/tests/fio_peer.py"

# each server in its own session, so that fio's forked children go with it
pgids=()
stop_servers() {
	local g
	for g in "${pgids[@]}"; do kill -TERM -- "-$g" 2>/dev/null; done
	for g in "${pgids[@]}"; do wait "$g" 2>/dev/null; done
	return 0
}
cleanup_hooks+=(stop_servers)
# serve NAME SOCKET CMD...: CMD in the background until SOCKET is a socket
serve() {
	local name=$1 sock=$2
	shift 2
	setsid "$@" >"$name.log" 2>&1 &
	pgids+=("$!")
	for _ in $(seq 300); do
		[ -S "$sock" ] && return 0
		kill -0 "$!" 2>/dev/null || break
		sleep 0.1
	done
	cat "$name.log" >&2
	fail "server $name did not start"
}
R="sock:$TMP/rq.sock"
F="sock:$TMP/fio.sock"
serve rq "$TMP/rq.sock" "$RQLOCK" server "$R" --workers 2 --no-pin
serve fio "$TMP/fio.sock" fio --server="$F"

cat >all.fio <<'JOB'
[global]
ioengine=null
size=1g
rw=randread
time_based
rate_iops=100
[steady]
new_group
runtime=60
ss=iops:25%
ss_dur=3
[group]
new_group
runtime=60
numjobs=2
group_reporting
ss=iops_slope:30%
ss_dur=3
ss_ramp=1
[pair]
new_group
runtime=60
numjobs=2
ss=bw:25%
ss_dur=2
[never]
new_group
runtime=3
ss=bw:0
ss_dur=2
[short]
new_group
runtime=2
ss=iops:10%
ss_dur=8
[plain]
new_group
runtime=1
JOB

fio --output-format=json,normal --client="$F" all.fio --client="$R" all.fio >both.out 2>both.err ||
	{ cat both.err rq.log fio.log; fail "fio --client on both servers failed"; }
python3 - both.out "$TMP/rq.sock" "$TMP/fio.sock" <<'PY' || fail "the fio client's output from rqlock server differs from fio --server's (above)"
import json, re, sys
out, rq, fs = sys.argv[1:4]
text = open(out).read()
i = text.index("\n{\n") + 1
normal, d = text[:i], json.loads(text[i:])
want = {"steady": [1], "group": [1], "pair": [1, 1], "never": [0], "short": [0], "plain": None}
bad = []
jobs = {rq: [], fs: []}
for c in d["client_stats"]:
    if c["jobname"] == "All clients":
        if "steadystate" in c:
            bad.append("All clients has a steadystate object (fio's has none)")
        continue
    jobs[c["hostname"]].append(c)
for h in (rq, fs):
    if [c["jobname"] for c in jobs[h]] != ["steady", "group", "pair", "pair", "never", "short", "plain"]:
        bad.append("%s: jobs %s" % (h, [c["jobname"] for c in jobs[h]]))
if bad:
    sys.exit("\n".join(bad))
seen = {}
for r, f in zip(jobs[rq], jobs[fs]):
    name = r["jobname"]
    k = seen[name] = seen.get(name, -1) + 1
    att = want[name] and want[name][k]
    if [x for x in r if x != "desc"] != [x for x in f if x != "desc"]:
        bad.append("%s: job keys: rqlock %s, fio %s" % (name, list(r), list(f)))
    if want[name] is None:
        if "steadystate" in r or "steadystate" in f:
            bad.append("%s: a steadystate object for a job without ss" % name)
        continue
    if "steadystate" not in r or "steadystate" not in f:
        bad.append("%s: steadystate: rqlock %s, fio %s" % (name, "steadystate" in r, "steadystate" in f))
        continue
    rs, fss = r["steadystate"], f["steadystate"]
    if list(rs) != list(fss) or list(rs["data"]) != list(fss["data"]):
        bad.append("%s: keys: rqlock %s %s, fio %s %s" % (name, list(rs), list(rs["data"]), list(fss), list(fss["data"])))
        continue
    for key in ("ss", "duration", "attained"):
        if rs[key] != fss[key]:
            bad.append("%s: %s: rqlock %r, fio %r" % (name, key, rs[key], fss[key]))
    for who, s in (("rqlock", rs), ("fio", fss)):
        v = s["data"]
        if s["attained"] != att:
            bad.append("%s: %s attained %d, want %d" % (name, who, s["attained"], att))
        if not len(v["iops"]) == len(v["bw"]) == s["duration"]:
            bad.append("%s: %s has %d/%d samples, window %d" % (name, who, len(v["iops"]), len(v["bw"]), s["duration"]))
        elif v["iops_mean"] != sum(v["iops"]) // s["duration"]:
            bad.append("%s: %s iops_mean %d is not its window's" % (name, who, v["iops_mean"]))
        if name == "short" and (v["iops"][-5:] != [0] * 5 or not v["iops"][0]):
            bad.append("short: %s's window is not samples then zeros: %s" % (who, v["iops"]))
        if name == "group" and v["iops_mean"] < 150:
            bad.append("group: %s's iops_mean %d: the pair at 100 IOPS each was not summed" % (who, v["iops_mean"]))
    print("ok: %s: %s attained=%d window=%d, rqlock %s, fio %s" %
          (name, rs["ss"], rs["attained"], rs["duration"], rs["data"]["iops"], fss["data"]["iops"]))

# the normal output: one block per job and host; rqlock's carry its description
line = re.compile(r"  steadystate  : attained=(yes|no), bw=\S+ \(\S+\), iops=\d+, (iops|bw)( slope| mean dev)=-?\d+\.\d{3}(%?)$")
lines = {"rqlock": [], "fio": []}
for block in re.split(r"\n(?=\S+: \(groupid=\d+, jobs=\d+\))", normal)[1:]:
    name = block.split(":", 1)[0]
    if name == "All clients":
        continue
    who = "rqlock" if "Description  : [rqlock" in block else "fio"
    ss = [l for l in block.splitlines() if "steadystate" in l]
    m = [line.match(l) for l in ss]
    if len(ss) > 1 or not all(m):
        bad.append("%s: %s: steadystate lines %s" % (who, name, ss))
        continue
    lines[who].append((name, m[0].groups() if m else None))
if lines["rqlock"] != lines["fio"] or len(lines["fio"]) != 7:
    bad.append("normal output:\n  rqlock %s\n  fio    %s" % (lines["rqlock"], lines["fio"]))
else:
    print("ok: normal output: %s" % [(n, g[0] if g else None) for n, g in lines["fio"]])
if bad:
    sys.exit("\n".join(bad))
PY

# the packets themselves: the same ss_dur and ss_state bits, the samples inside
python3 "$PEER" "$F" ssstate all.fio >fio.ts 2>&1 &
fpid=$!
python3 "$PEER" "$R" ssstate all.fio >rq.ts 2>&1 || { cat rq.ts rq.log; fail "fio_peer ssstate on rqlock server failed"; }
wait "$fpid" || { cat fio.ts; fail "fio_peer ssstate on fio --server failed"; }
diff fio.ts rq.ts >ts.diff || { cat ts.diff; fail "the TS packets' steady-state fields differ (< fio, > rqlock)"; }
grep -q '^never ss_dur=2 ss_state=0x.. samples=2 iops_sum=yes$' rq.ts || { cat rq.ts; fail "no samples in the never job's TS"; }
sed 's/^/ok: TS /' rq.ts
# SIGTERM ends rqlock's server with 0 (under ASan: without a leak report)
kill -TERM "${pgids[0]}"
wait "${pgids[0]}"
rc=$?
[ $rc -eq 0 ] || { cat rq.log; fail "rqlock server exited $rc on SIGTERM"; }
! grep -q 'Sanitizer' rq.log || { cat rq.log; fail "sanitizer report from rqlock server"; }
echo "test_fio_server_ss: ok"
