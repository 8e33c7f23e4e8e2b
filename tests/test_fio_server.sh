#!/usr/bin/env bash
# rqlock server against the real fio 3.33 client (issue 16):
# - fio --client talks to two `rqlock server sock:PATH` processes and one on a
#   free loopback TCP port at once (and ::1 where there is IPv6); JSON, json+
#   and normal output name every
#   host plus "All clients", whose io_bytes/total_ios are the hosts' sums;
# - garbage, bad checksums, a version mismatch, an oversized, malformed or slow
#   partial packet and a client that vanishes mid-run each cost one log line, and both
#   servers still serve the next job, with no thread left behind;
# - a write outside the allow-list (a path, a built-in's file=, an include) is
#   refused with a message to the client and nothing is created;
# - a non-loopback address is refused without --allow-nonlocal.
# fio's own syntax for several hosts is --client=H1 job --client=H2 job (with
# one job file after all --client, fio 3.33 runs only one host in normal mode).
# Only unix sockets, 127.0.0.1 and ::1 are used.  Skips (77) without fio or python3.
. "$(dirname "$0")/lib.sh"
need python3
need fio
fio --version | grep -q '^fio-3\.33' || skip "the fio client here is $(fio --version), the protocol is 3.33's"
PEER="$SRCDIR/tests/fio_peer.py"

pids=()
kill_servers() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
}
cleanup_hooks+=(kill_servers)

# start NAME ADDR [OPTIONS...]: a server in the background, its stderr in $TMP/NAME.log
start() {
	local name=$1 addr=$2
	shift 2
	"$RQLOCK" server "$addr" --workers 2 --no-pin "$@" 2>"$TMP/$name.log" &
	pids+=($!)
	eval "pid_$name=$!"
	for _ in $(seq 100); do
		if grep -q 'listening on' "$TMP/$name.log"; then
			# between connections a server is its service thread alone; ThreadSanitizer
			# adds its background thread once the process has made a thread
			if grep -q libtsan "/proc/$!/maps"; then eval "base_$!=2"; else eval "base_$!=1"; fi
			return 0
		fi
		kill -0 "$!" 2>/dev/null || break
		sleep 0.1
	done
	cat "$TMP/$name.log" >&2
	fail "server $name did not start"
}

# threads PID: the process's thread count
threads() { ls "/proc/$1/task" | wc -l; }

# settle PID: wait until the server is back to the threads it started with
settle() {
	local base
	eval "base=\$base_$1"
	for _ in $(seq 100); do
		[ "$(threads "$1")" -eq "$base" ] && return 0
		sleep 0.1
	done
	fail "server $1 has $(threads "$1") threads after the connection ended, not $base"
}

A="sock:$TMP/a.sock"
B="sock:$TMP/b.sock"
mkdir "$TMP/ok"
start a "$A" --lock=global --allow "$TMP/ok/"
start b "$B" --lock=mq --read-timeout=1000
# a free loopback port: asked of the kernel, then bound by the server; another
# process may take it in between, so try a few
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for _ in 1 2 3 4 5; do
	port=$(free_port)
	"$RQLOCK" server "ip:127.0.0.1,$port" --workers 2 --no-pin 2>"$TMP/t.log" &
	pid_t=$!
	pids+=($pid_t)
	for _ in $(seq 100); do
		grep -q 'listening on' "$TMP/t.log" && break
		kill -0 "$pid_t" 2>/dev/null || break
		sleep 0.1
	done
	grep -q 'listening on' "$TMP/t.log" && break
done
grep -q 'listening on' "$TMP/t.log" || { cat "$TMP/t.log"; fail "no TCP server on a free loopback port"; }

cat >"$TMP/j.fio" <<'JOB'
[global]
size=8m
bs=4k
[rand]
filename=@null0
rw=randread
iodepth=4
[seq]
filename=@ram0,size=8m
rw=write
JOB

# --- two unix-socket servers at once, JSON ---
fio --output-format=json --client="$A" "$TMP/j.fio" --client="$B" "$TMP/j.fio" >"$TMP/out.json" 2>"$TMP/fio.err" \
	|| { cat "$TMP/fio.err" "$TMP"/*.log; fail "fio --client on two servers failed"; }
python3 - "$TMP/out.json" "$TMP/a.sock" "$TMP/b.sock" <<'PY' || fail "JSON output of two servers is wrong"
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index('{'):])
cs = d['client_stats']
hosts = {c['hostname'] for c in cs if c['jobname'] != 'All clients'}
assert hosts == {sys.argv[2], sys.argv[3]}, hosts
allc = [c for c in cs if c['jobname'] == 'All clients']
assert len(allc) == 1, [c['jobname'] for c in cs]
per = [c for c in cs if c['jobname'] != 'All clients']
assert len(per) == 4, len(per)
for dd in ('read', 'write'):
    for k in ('io_bytes', 'total_ios'):
        s = sum(c[dd][k] for c in per)
        assert allc[0][dd][k] == s, (dd, k, allc[0][dd][k], s)
assert allc[0]['read']['io_bytes'] == 2 * 8 * 2**20 and allc[0]['write']['io_bytes'] == 2 * 8 * 2**20
# rqlock's facts ride in the description: each server's own lock mode
modes = {c['hostname']: c['desc'].split()[1] for c in per}
assert modes == {sys.argv[2]: 'lock=global', sys.argv[3]: 'lock=mq'}, modes
for c in per:
    assert c['job options'].get('rw') in ('randread', 'write'), c['job options']
print('ok: two servers and All clients')
PY

# --- unix socket and loopback TCP, json+ and normal ---
fio --output-format=json+ --client="$A" "$TMP/j.fio" --client="ip:127.0.0.1,$port" "$TMP/j.fio" >"$TMP/plus.json" 2>"$TMP/fio.err" \
	|| { cat "$TMP/fio.err"; fail "fio --client over TCP failed"; }
python3 - "$TMP/plus.json" <<'PY' || fail "json+ over TCP is wrong"
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index('{'):])
cs = d['client_stats']
assert {c['hostname'] for c in cs} >= {'127.0.0.1'}, [c['hostname'] for c in cs]
r = [c for c in cs if c['jobname'] == 'rand']
assert len(r) == 2 and all(sum(c['read']['clat_ns']['bins'].values()) == c['read']['total_ios'] for c in r)
print('ok: json+ bins over TCP')
PY
fio --client="$A" "$TMP/j.fio" --client="$B" "$TMP/j.fio" >"$TMP/out.txt" 2>&1 || { cat "$TMP/out.txt"; fail "normal output run failed"; }
grep -q '^All clients: (groupid=0, jobs=4)' "$TMP/out.txt" || fail "no All clients in the normal output"
grep -q '^rand: (groupid=0, jobs=1)' "$TMP/out.txt" || fail "no per-job block in the normal output"
grep -q '<.*> rqlock: lock=mq' "$TMP/out.txt" || fail "no rqlock TEXT block from the mq server"
grep -q 'lockstat' "$TMP/out.txt" || fail "no lockstat summary in the normal output"
# the probe reply names the arch rqlock was built for (FIO_ARCH_HOST), as fio's does;
# checked where the machine's arch and a 64-bit build say which it must be
probe=$(grep -m1 '^hostname=' "$TMP/out.txt") || fail "no probe reply line in the normal output"
case "$(uname -m)" in
x86_64) want=x86-64 ;;
aarch64) want=aarch64 ;;
*) want= ;;
esac
if [ -n "$want" ] && [[ "$probe" == *", 64-bit, "* ]]; then
	[[ "$probe" == *"arch=$want,"* ]] || fail "probe reply '$probe' does not say arch=$want"
fi

# --- IPv6 loopback, where the machine has it ---
port6=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1", 0)); print(s.getsockname()[1])' 2>/dev/null)
if [ -n "$port6" ]; then
	start six "ip6:::1,$port6" --max-connections 1
	fio --output-format=json --client="ip6:::1,$port6" "$TMP/j.fio" >"$TMP/six.json" 2>"$TMP/fio.err" \
		|| { cat "$TMP/fio.err" "$TMP/six.log"; fail "fio --client over ip6 ::1 failed"; }
	grep -q '"hostname" : "::1"' "$TMP/six.json" || fail "no ::1 host in the ip6 run"
	wait "$pid_six" || fail "the ip6 server did not exit 0 after --max-connections 1"
else
	echo "note: no IPv6 loopback here, ip6 not tested"
fi

# --- bad peers: one log line each, and the servers go on ---
for mode in garbage badcrc badpdu version oversize malformed; do
	python3 "$PEER" "$A" "$mode" || fail "server a did not drop a $mode peer"
	python3 "$PEER" "$B" "$mode" || fail "server b did not drop a $mode peer"
done
python3 "$PEER" "$B" slow || fail "server b did not drop a slow partial packet"
cat >"$TMP/long.fio" <<'JOB'
[long]
filename=@null0,delay_us=50
rw=randread
iodepth=4
time_based=1
runtime=30s
JOB
python3 "$PEER" "$A" vanish "$TMP/long.fio" || fail "vanish peer could not start a run on a"
python3 "$PEER" "$B" vanish "$TMP/long.fio" || fail "vanish peer could not start a run on b"
sleep 0.5
settle "$pid_a"
settle "$pid_b"
for s in a b; do
	log="$TMP/$s.log"
	for what in 'header checksum mismatch (PROBE)' 'payload checksum mismatch' 'protocol version 96' \
		    'oversized packet' 'malformed JOB payload' 'client vanished mid-run'; do
		[ "$(grep -c "$what" "$log")" -eq 1 ] || { cat "$log"; fail "server $s: expected one '$what' line"; }
	done
done
[ "$(grep -c 'slow partial packet' "$TMP/b.log")" -eq 1 ] || { cat "$TMP/b.log"; fail "no slow-packet line"; }
# both still serve, and a stopped run does not stop the next one
fio --output-format=json --client="$A" "$TMP/j.fio" --client="$B" "$TMP/j.fio" >"$TMP/again.json" 2>"$TMP/fio.err" \
	|| { cat "$TMP/fio.err" "$TMP"/*.log; fail "servers do not serve after bad peers"; }
json_all=$(python3 -c 'import json,sys; t=open(sys.argv[1]).read(); d=json.loads(t[t.index("{"):]); print([c["read"]["io_bytes"] for c in d["client_stats"] if c["jobname"]=="All clients"][0])' "$TMP/again.json")
[ "$json_all" -eq $((2 * 8 * 1048576)) ] || fail "the run after the bad peers did $json_all bytes"
settle "$pid_a"
settle "$pid_b"

# --- the allow-list: refused, said to the client, nothing created ---
mkdir "$TMP/out"
printf '[w]\nfilename=%s\nrw=write\nsize=1m\n' "$TMP/out/newfile" >"$TMP/w.fio"
printf '[w]\nfilename=@hdd0,file=%s\nrw=write\nsize=1m\n' "$TMP/out/hddfile" >"$TMP/w2.fio"
printf 'include %s\n[w]\nfilename=@null0\nrw=read\nsize=1m\n' "$TMP/out/inc.fio" >"$TMP/w3.fio"
for f in w w2 w3; do
	if fio --client="$A" "$TMP/$f.fio" >"$TMP/$f.out" 2>&1; then
		cat "$TMP/$f.out"
		fail "$f.fio outside the allow-list was not refused"
	fi
	grep -q 'not in the allow-list' "$TMP/$f.out" || { cat "$TMP/$f.out"; fail "$f.fio: no message to the client"; }
done
[ -z "$(ls -A "$TMP/out")" ] || fail "a refused job created $(ls "$TMP/out")"
grep -q "refused: job 'w': filename: '$TMP/out/newfile' is not in the allow-list" "$TMP/a.log" || fail "no log line for the refusal"

# an allowed directory: the write runs and its file is there, whole
printf '[w]\nfilename=%s\nrw=write\nsize=1m\nbs=64k\n' "$TMP/ok/data" >"$TMP/ok.fio"
fio --client="$A" "$TMP/ok.fio" >"$TMP/ok.out" 2>&1 || { cat "$TMP/ok.out"; fail "a write inside --allow was refused"; }
[ "$(stat -c %s "$TMP/ok/data")" -eq 1048576 ] || fail "the allowed write left $(stat -c %s "$TMP/ok/data") bytes"
# a path that climbs out of the allowed directory is still outside it
printf '[w]\nfilename=%s/ok/../out/esc\nrw=write\nsize=1m\n' "$TMP" >"$TMP/esc.fio"
fio --client="$A" "$TMP/esc.fio" >"$TMP/esc.out" 2>&1 && fail "ok/../out/esc escaped the allow-list"
[ ! -e "$TMP/out/esc" ] || fail "a refused escape created its file"

# --- non-loopback binds need --allow-nonlocal (refused before binding) ---
"$RQLOCK" server ip:0.0.0.0,1 >/dev/null 2>"$TMP/nl.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'not a loopback address' "$TMP/nl.err" || { cat "$TMP/nl.err"; fail "0.0.0.0 was not refused (rc $rc)"; }
# a host name past 255 bytes: one line, exit 2 (it exited 2 in silence)
long=$(printf 'h%.0s' $(seq 300))
"$RQLOCK" server "ip:$long,8765" >/dev/null 2>"$TMP/long.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/long.err")" -eq 1 ] && grep -q 'host name too long' "$TMP/long.err" \
	|| { cat "$TMP/long.err"; fail "a 300-byte host gave rc $rc without its one line"; }
"$RQLOCK" server "sock:$TMP/out" >/dev/null 2>"$TMP/ns.err" && fail "a directory was taken for a socket"
grep -q 'not a socket' "$TMP/ns.err" || fail "no message for a non-socket path"

# --- SIGTERM ends a server cleanly (under ASan: without a leak) and removes its socket ---
for s in a b t; do
	eval "p=\$pid_$s"
	kill "$p"
	wait "$p"
	rc=$?
	[ $rc -eq 0 ] || { cat "$TMP/$s.log"; fail "server $s exited $rc on SIGTERM"; }
	! grep -q 'Sanitizer' "$TMP/$s.log" || { cat "$TMP/$s.log"; fail "server $s: sanitizer report"; }
done
[ ! -e "$TMP/a.sock" ] && [ ! -e "$TMP/b.sock" ] || fail "a server left its socket behind"
echo "PASS"
