#!/usr/bin/env bash
# A fleet sweep (issue 16, "Fleet sweeps"): `rqlock sweep --clients` over two
# `rqlock server sock:PATH` processes and one on a free 127.0.0.1 port, with
# the fio baseline on a real `fio --server sock:PATH`:
# - one run store: every point on every server of its group through one
#   `fio --client` run (fio's "All clients" is the sum of the two hosts),
#   summary.csv rows per host with the host's cores (its PROBE reply);
# - the lock mode and workers are each server's own, read from its output;
# - compare and plot merge the hosts: one plot naming both hosts;
# - bad --clients values: one line, exit 2, nothing written;
# - a server restarted with other options fails its point, it is not misfiled.
# Hosts are unix sockets and 127.0.0.1 only.  Every server is killed by its
# process group at the end, pass or fail.  Skips (77) without fio 3.33,
# python3 or gnuplot.
. "$(dirname "$0")/lib.sh"
need python3
need fio
need gnuplot
need setsid
fio --version | grep -q '^fio-3\.33' || skip "the fio client here is $(fio --version), the protocol is 3.33's"
S="$SRCDIR/scripts"

pgids=()
# running PGID: a process of the group is alive (not a zombie left to reap)
running() { ps -e -o pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { f = 1 } END { exit !f }'; }
# stop PGID: SIGTERM to the group, SIGKILL after 5 s, then reap the leader
stop() {
	kill -TERM -- "-$1" 2>/dev/null
	for _ in $(seq 50); do running "$1" || break; sleep 0.1; done
	kill -KILL -- "-$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}
kill_servers() {
	local g
	for g in "${pgids[@]}"; do kill -TERM -- "-$g" 2>/dev/null; done
	for g in "${pgids[@]}"; do stop "$g"; done
	return 0
}
cleanup_hooks+=(kill_servers)

# serve NAME WAIT_FOR CMD...: CMD in its own session (its pid is its process
# group), stderr and stdout in $TMP/NAME.log, until WAIT_FOR shows there
# (or, for WAIT_FOR = -S PATH, until PATH is a socket: fio --server says nothing)
serve() {
	local name=$1 what=$2 pid
	shift 2
	setsid "$@" >"$TMP/$name.log" 2>&1 &
	pid=$!
	pgids+=("$pid")
	eval "pid_$name=$pid"
	for _ in $(seq 600); do
		case $what in
		"-S "*) [ -S "${what#-S }" ] && break ;;
		*) grep -q "$what" "$TMP/$name.log" && break ;;
		esac
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	case $what in
	"-S "*) [ -S "${what#-S }" ] ;;
	*) grep -q "$what" "$TMP/$name.log" ;;
	esac || { cat "$TMP/$name.log" >&2; fail "server $name did not start"; }
	# serving, so past setsid(): the server leads its own process group
	[ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ] || fail "$name: not its own process group"
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

A="sock:$TMP/a.sock"
B="sock:$TMP/b.sock"
F="sock:$TMP/f.sock"
serve a 'listening on' "$RQLOCK" server "$A" --lock=per-queue --workers=1 --no-pin
serve b 'listening on' "$RQLOCK" server "$B" --lock=per-queue --workers=1 --no-pin
# the loopback server: a port asked of the kernel, then bound by the server
# (another process may take it in between: retry)
for _ in 1 2 3; do
	port=$(free_port)
	setsid "$RQLOCK" server "ip:127.0.0.1,$port" --lock=mq --workers=2 --no-pin >"$TMP/c.log" 2>&1 &
	pgids+=("$!")
	for _ in $(seq 600); do
		grep -q 'listening on' "$TMP/c.log" && break
		kill -0 "$!" 2>/dev/null || break
		sleep 0.1
	done
	grep -q 'listening on' "$TMP/c.log" && break
done
grep -q 'listening on' "$TMP/c.log" || { cat "$TMP/c.log" >&2; fail "no rqlock server on a free loopback port"; }
C="ip:127.0.0.1,$port"
serve f "-S $TMP/f.sock" fio --server="$F"

out="$TMP/runs"
ncpu=$(nproc)
common=(--rqlock "$RQLOCK" --out "$out" --drives 1,2 --runtime 1 --repeat 1 --var QD=4)
job="$SRCDIR/jobs/multi-drive-scaling.fio"

# 1. bad --clients: one line naming the value, exit 2, nothing written
bad() {
	local why=$1
	shift
	"$S/sweep" "${common[@]}" --id bad "$@" "$job" >"$TMP/bad.out" 2>"$TMP/bad.err"
	local rc=$?
	[ "$rc" -eq 2 ] || { cat "$TMP/bad.err" >&2; fail "$why: exit $rc, not 2"; }
	[ "$(wc -l <"$TMP/bad.err")" -eq 1 ] || { cat "$TMP/bad.err" >&2; fail "$why: not one line"; }
	[ ! -e "$out/bad" ] || fail "$why: $out/bad was written"
}
bad "an unknown address kind" --clients "ftp:example"
grep -q '^sweep: --clients: ftp:example: unknown address kind' "$TMP/bad.err" || fail "ftp: $(cat "$TMP/bad.err")"
bad "a relative socket path" --clients "$A,sock:rel.sock"
grep -q 'sock:rel.sock: sock: wants an absolute path' "$TMP/bad.err" || fail "rel: $(cat "$TMP/bad.err")"
bad "a port out of range" --clients "ip:127.0.0.1,70000"
bad "an empty entry" --clients "$A,,$B"
bad "no server there" --clients "sock:$TMP/nothing.sock"
grep -q "sock:$TMP/nothing.sock: cannot connect" "$TMP/bad.err" || fail "no server: $(cat "$TMP/bad.err")"
bad "a fio server given as rqlock" --clients "$F"
grep -q 'not rqlock' "$TMP/bad.err" || fail "fio as rqlock: $(cat "$TMP/bad.err")"
bad "an rqlock server given as fio" --clients "$A" --fio-clients "$B"
grep -q 'an rqlock server, not fio' "$TMP/bad.err" || fail "rqlock as fio: $(cat "$TMP/bad.err")"
bad "one address twice" --clients "$A,x=$A"
bad "a mode no server runs" --clients "$A" --modes global
bad "a --var without values (found while the manifest is built)" --clients "$A" --var QQ
[ ! -e "$out" ] || fail "a refused sweep left $out behind"
bad "--workers with --clients" --clients "$A" --workers 2
grep -q "a server's workers are its own" "$TMP/bad.err" || fail "--workers: $(cat "$TMP/bad.err")"

# 2. the fleet sweep: a and b (per-queue, 1 worker) together, c (mq, 2 workers), fio's null engine on f
"$S/sweep" "${common[@]}" --id f --clients "alpha=$A,$B,gamma=$C" --fio-clients "$F" "$job" \
	>"$TMP/f.out" 2>"$TMP/f.err" || { cat "$TMP/f.err" >&2; fail "the fleet sweep failed"; }
run="$out/f"
[ "$(ls "$out")" = f ] || fail "more than one run store: $(ls "$out")"
python3 - "$run" "$ncpu" "$A" "$B" "$C" "$F" <<'PY' || fail "the fleet run store"
import csv, glob, json, os, sys
run, ncpu, A, B, C, F = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
man = json.load(open(os.path.join(run, "manifest.json")))
assert man["status"] == "done", man["status"]
fl = man["fleet"]
got = {(s["name"], s["addr"], s["mode"], s["primitive"], s["workers"], s["cores"]) for s in fl["servers"]}
assert got == {("alpha", A, "per-queue", "ttas", 1, ncpu), (B, B, "per-queue", "ttas", 1, ncpu),
               ("gamma", C, "mq", "ttas", 2, ncpu)}, got
assert [(s["name"], s["cores"], s["version"].startswith("fio-")) for s in fl["fio_servers"]] == [(F, ncpu, True)]
assert man["modes"] == ["per-queue", "mq", "fio-null"], man["modes"]
rows = list(csv.DictReader(open(os.path.join(run, "summary.csv"))))
seen = {(r["host"], r["mode"], r["drives"], r["workers"]) for r in rows}
want = {(h, "per-queue", d, "1") for h in ("alpha", B) for d in "12"} | \
       {("gamma", "mq", d, "2") for d in "12"} | {(F, "fio-null", d, w) for d in "12" for w in "12"}
assert seen == want, seen ^ want
for r in rows:
    assert r["status"] == "ok" and float(r["iops"]) > 0 and r["cores"] == str(ncpu), r
# one fio client run per point over both servers of the group: fio's "All clients" is their sum
for jp in glob.glob(os.path.join(run, "json", "*.per-queue.*.json")):
    if jp.endswith(".meta.json"):
        continue
    t = open(jp).read()
    doc = json.loads(t[t.find("{"):])
    cs = doc["client_stats"]
    hosts = [c for c in cs if c["jobname"] != "All clients"]
    allc = [c for c in cs if c["jobname"] == "All clients"]
    assert sorted(c["hostname"] for c in hosts) == sorted([A[5:], B[5:]]), [c["hostname"] for c in hosts]
    assert len(allc) == 1, jp
    assert allc[0]["read"]["total_ios"] == sum(c["read"]["total_ios"] for c in hosts), jp
    for c in hosts:
        assert c["desc"].startswith("rqlock lock=per-queue lock-type=ttas workers=1"), c["desc"]
    meta = json.load(open(jp[:-5] + ".meta.json"))
    assert meta["command"].count("--output-format=json") == 1 and \
        [a for a in meta["command"] if a.startswith("--client=")] == ["--client=" + A, "--client=" + B], meta["command"]
# the job files as the hosts ran them: variables resolved, the point's sections only
for p in glob.glob(os.path.join(run, "jobs", "points", "*.fio")):
    text = open(p).read()
    live = [l for l in text.splitlines() if not l.lstrip().startswith((";", "#"))]
    assert not any("${" in l for l in live), p
    secs = [l.strip() for l in live if l.strip().startswith("[")]
    name = os.path.basename(p)  # the name, not the path: mktemp's letters may hold ".d"
    d = int(name.split(".d")[1].split(".")[0])
    assert secs == ["[global]"] + ["[drive%d]" % i for i in range(d)], (p, secs)
    if ".fio-null." in name:
        assert "ioengine=null" in live and not any(l.startswith(("filename=", "direct=")) for l in live), p
    else:
        assert "filename=@null0" in live, p
PY

# 3. compare and plot merge the hosts: one plot naming both hosts of the pair
"$S/compare" "$run" >"$TMP/cmp.txt" 2>"$TMP/cmp.err" || { cat "$TMP/cmp.err" >&2; fail "compare"; }
grep -q "per-queue on alpha" "$TMP/cmp.txt" || fail "compare: no alpha column"
grep -q "per-queue on $B" "$TMP/cmp.txt" || fail "compare: no $B column"
grep -q "hosts side by side, IOPS against workers per core" "$TMP/cmp.txt" || fail "compare: no fleet table"
"$S/plot" "$run" >"$TMP/plot.out" 2>"$TMP/plot.err" || { cat "$TMP/plot.err" >&2; fail "plot"; }
gp="$run/plots/multi-drive-scaling-fleet-scaling"
for f in "$gp.png" "$gp.svg" "$gp.gp" "$gp.dat"; do
	[ -s "$f" ] || fail "plot: no $f ($(cat "$TMP/plot.out"))"
done
for h in alpha "$B" gamma "$F"; do
	grep -qF "on $h" "$gp.gp" || fail "the merged plot does not name host $h"
	grep -qF "on $h" "$gp.svg" || fail "the merged SVG does not show host $h"
done

# 3b. a device template for one host (--dev HOST:PREFIX=): each host runs its own job file
bad "--dev for a host not in --clients" --clients "alpha=$A" --dev "nohost:DISK=@null{n}"
grep -q "no --clients host is named nohost" "$TMP/bad.err" || fail "--dev nohost: $(cat "$TMP/bad.err")"
"$S/sweep" "${common[@]}" --id h --drives 1 --clients "alpha=$A,beta=$B" --dev "beta:DISK=@null{n},irqmode=1" \
	"$job" >"$TMP/h.out" 2>"$TMP/h.err" || { cat "$TMP/h.err" >&2; fail "the sweep with a per-host --dev failed"; }
python3 - "$out/h" "$A" "$B" <<'PY' || fail "per-host device templates"
import glob, json, os, sys
run, A, B = sys.argv[1:]
metas = [m for m in glob.glob(os.path.join(run, "json", "*.meta.json"))]
assert metas, run
for mp in metas:
    cmd = json.load(open(mp))["command"]
    jobs = dict((cmd[i][len("--client="):], cmd[i + 1]) for i in range(len(cmd)) if cmd[i].startswith("--client="))
    assert set(jobs) == {A, B} and jobs[A] != jobs[B], cmd
    assert "filename=@null0\n" in open(jobs[A]).read(), jobs[A]
    assert "filename=@null0,irqmode=1\n" in open(jobs[B]).read(), jobs[B]
PY

# 4. a server restarted with other options: the point run again on it fails, naming
# the server and what it ran; nothing is filed under the wrong mode
stop "$pid_b"
serve b2 'listening on' "$RQLOCK" server "$B" --lock=global --workers=1 --no-pin
pt="multi-drive-scaling.per-queue.ttas.d1.w1.QD4-r1"
rm -f "$run/json/$pt.json" "$run/json/$pt.meta.json"
"$S/sweep" --resume "$run" >"$TMP/r.out" 2>"$TMP/r.err"
rc=$?
[ "$rc" -eq 1 ] || { cat "$TMP/r.err" >&2; fail "resume against a changed server: exit $rc, not 1"; }
grep -q "$B ran lock=global lock-type=ttas workers=1, the point is lock=per-queue" "$TMP/r.err" ||
	fail "the changed server is not named: $(cat "$TMP/r.err")"
grep -q "7 of 8 runs already in" "$TMP/r.err" || fail "the resume redid finished points: $(cat "$TMP/r.err")"
[ ! -e "$run/json/$pt.json" ] || fail "the point's JSON was kept"
python3 - "$run/summary.csv" <<'PY' || fail "summary.csv after the failed point"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["point"].startswith("multi-drive-scaling.per-queue.ttas.d1.")]
assert len(rows) == 2 and all(r["status"].startswith("failed: ") and "lock=global" in r["status"] for r in rows), rows
PY

# 5. a host that is gone is named (fio's own line says only "connect: Connection refused")
stop "$pid_b2"
"$S/sweep" --resume "$run" --retry-failed >"$TMP/d.out" 2>"$TMP/d.err"
grep -q "$B: connect: " "$TMP/d.err" || fail "the dead host is not named: $(cat "$TMP/d.err")"

# the servers stop cleanly, with nothing from a sanitizer in their logs
kill_servers
! grep -l 'Sanitizer' "$TMP"/*.log || fail "a sanitizer report in a server log: $(grep -h -A5 Sanitizer "$TMP"/*.log | head -20)"
exit 0
