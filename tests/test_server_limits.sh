#!/usr/bin/env bash
# rqlock server's limits (issue 25), each through the real fio 3.33 client:
# - --max-memory (built-in devices' memory, and the clones' I/O buffers with
#   it), --max-numjobs, --max-files, --max-iodepth: a job over one
#   is refused before anything is opened, one line naming the option;
# - --max-runtime: a run longer than the cap is stopped and its results sent;
# - one peer cannot hold the server: a second `fio --client` while a first
#   holds a long run is answered at once with "busy, serving HOST since T"
#   (before: it waited silently until the first was done), even one that
#   sends its job seconds after connecting, and a client that
#   only sends SEND_ETA is dropped at the idle timeout (before: each ping
#   reset it, forever);
# - --name is the host name the client prints; the server's lock options,
#   lockdep included, are in every job's description.
# Skips (77) without fio 3.33 or python3.
. "$(dirname "$0")/lib.sh"
need python3
need fio
fio --version | grep -q '^fio-3\.33' || skip "the fio client here is $(fio --version), the protocol is 3.33's"

pid=
stop_server() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$pid" ] && wait "$pid" 2>/dev/null; pid=; }
cleanup_hooks+=(stop_server)
A="sock:$TMP/s.sock"
"$RQLOCK" server "$A" --workers 2 --no-pin --name=limits-host --max-memory=8m --max-numjobs=4 \
	--max-files=8 --max-iodepth=64 --max-runtime=3 --idle-timeout=1500 2>"$TMP/s.log" &
pid=$!
for _ in $(seq 600); do grep -q 'listening on' "$TMP/s.log" && break; sleep 0.1; done
grep -q 'limits-host listening on' "$TMP/s.log" || { cat "$TMP/s.log"; fail "server did not start"; }

# refused OPTION TEXT: the job is refused and the client's output names OPTION
refused() {
	printf '%b' "$2" >"$TMP/j.fio"
	if fio --client="$A" "$TMP/j.fio" >"$TMP/out" 2>&1; then
		cat "$TMP/out"
		fail "a job over $1 ran"
	fi
	grep -q "rqlock server: .*$1" "$TMP/out" || { cat "$TMP/out"; fail "no line naming $1 for the client"; }
	grep "rqlock server: .*$1" "$TMP/out" | head -1
}
refused '--max-memory=8388608' '[r]\nfilename=@ram0,size=64m\nrw=write\nsize=1m\n'
refused '--max-memory=8388608' '[r]\nfilename=@ram0,size=6m:@ram1,size=6m\nrw=write\nsize=1m\n'
refused 'I/O buffers .* over the server.s --max-memory=8 MiB' '[r]\nfilename=@null0\nrw=read\nsize=4m\nbs=1m\niodepth=64\nnumjobs=2\n'
refused '--max-numjobs=4' '[r]\nfilename=@null0\nrw=read\nsize=64k\nnumjobs=5\n'
refused '--max-numjobs=4' '[a]\nfilename=@null0\nrw=read\nsize=64k\nnumjobs=3\n[b]\nfilename=@null0\nrw=read\nsize=64k\nnumjobs=2\n'
refused '--max-files=8' '[r]\nioengine=null\nrw=read\nsize=64k\nnrfiles=9\n'
refused '--max-files=8' '[r]\nioengine=null\nrw=read\nsize=64k\nnrfiles=3\nnumjobs=3\n'
refused '--max-iodepth=64' '[r]\nfilename=@null0\nrw=read\nsize=64k\niodepth=65\n'
# under every cap: runs
printf '[r]\nfilename=@ram0,size=4m\nrw=write\nsize=1m\nnumjobs=2\niodepth=64\n' >"$TMP/ok.fio"
fio --client="$A" "$TMP/ok.fio" >"$TMP/ok.out" 2>&1 || { cat "$TMP/ok.out"; fail "a job under the caps was refused"; }
grep -q '<limits-host>' "$TMP/ok.out" || { cat "$TMP/ok.out"; fail "the client does not print --name"; }

# --max-runtime: stopped, results still sent
printf '[t]\nfilename=@null0\nrw=read\ntime_based\nruntime=60\n' >"$TMP/long.fio"
start=$(date +%s)
fio --output-format=json --client="$A" "$TMP/long.fio" >"$TMP/long.json" 2>"$TMP/long.err"
took=$(( $(date +%s) - start ))
grep -q 'max-runtime=3' "$TMP/long.err" "$TMP/long.json" || { cat "$TMP/long.err"; fail "no --max-runtime line for the client"; }
[ "$took" -lt 60 ] || fail "a 60 s run went on past --max-runtime=3 ($took s)"
ios=$(python3 -c 'import json,sys; t=open(sys.argv[1]).read(); j=json.loads(t[t.index("{"):]); print(j["client_stats"][0]["read"]["total_ios"])' "$TMP/long.json") \
	|| { cat "$TMP/long.json"; fail "no results after --max-runtime"; }
[ "$ios" -gt 0 ] || fail "the stopped run reported no I/O"
echo "--max-runtime=3 stopped a runtime=60 run after $took s with $ios I/Os reported"

# a second client while the first holds a run: busy, at once
stop_server
"$RQLOCK" server "$A" --workers 2 --no-pin --name=busy-host --idle-timeout=1500 --lockdep 2>"$TMP/s.log" &
pid=$!
for _ in $(seq 600); do grep -q 'listening on' "$TMP/s.log" && break; sleep 0.1; done
printf '[t]\nfilename=@null0\nrw=read\ntime_based\nruntime=20\nrate_iops=1000\n' >"$TMP/hold.fio"
fio --client="$A" "$TMP/hold.fio" >"$TMP/hold.out" 2>&1 &
holder=$!
for _ in $(seq 600); do grep -q 'running 1 job' "$TMP/s.log" && break; sleep 0.1; done
grep -q 'running 1 job' "$TMP/s.log" || { cat "$TMP/s.log"; fail "the first client's run did not start"; }
t0=$(date +%s.%N)
fio --client="$A" "$TMP/ok.fio" >"$TMP/second.out" 2>&1 && { cat "$TMP/second.out"; fail "the second client ran while the first held the server"; }
t1=$(date +%s.%N)
kill -0 "$holder" 2>/dev/null || fail "the first run ended before the second client was answered"
grep -q 'busy, serving .* since ' "$TMP/second.out" || { cat "$TMP/second.out"; fail "the second client got no busy line"; }
grep 'busy, serving' "$TMP/second.out"
echo "second client answered busy after $(python3 -c "print('%.2f' % ($t1 - $t0))") s while the first ran"
# a client slow between connect() and its job (a loaded machine) still reads the busy line:
# before, the server hung up 1 s after answering, and fio, writing its job into the closed
# socket, died of SIGPIPE without a word
python3 "$SRCDIR/tests/fio_peer.py" "$A" latebusy "$TMP/ok.fio" >"$TMP/late.out" 2>&1 \
	|| { cat "$TMP/late.out"; fail "a client 2.5 s late with its job got no busy line"; }
cat "$TMP/late.out"
wait "$holder" || { cat "$TMP/hold.out"; fail "the first client's run failed"; }
# and the server serves again afterwards; its lock options, lockdep too, are in the results
fio --output-format=json --client="$A" "$TMP/ok.fio" >"$TMP/after.json" 2>"$TMP/after.err" \
	|| { cat "$TMP/after.err"; fail "no service after the busy answer"; }
grep -q '"desc" : "rqlock lock=global lock-type=ttas workers=2 lockdep=on lockstat=on' "$TMP/after.json" \
	|| { grep desc "$TMP/after.json"; fail "the server's lockdep is not in the results"; }

# ETA pings are not activity: dropped at the idle timeout
python3 "$SRCDIR/tests/fio_peer.py" "$A" etaping || fail "a client sending only SEND_ETA was never dropped"
grep -q 'idle for 1500 ms (ETA requests do not count)' "$TMP/s.log" || { cat "$TMP/s.log"; fail "no idle log line"; }
kill -0 "$pid" || fail "the server died"
echo PASS
