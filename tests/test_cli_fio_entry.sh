#!/usr/bin/env bash
# test_cli_fio_entry: rqlock-fio is fio to the tools that drive fio (issue
# 26): the link beside rqlock (and one named fio) takes fio's command line
# with no `run`: job files, command-line jobs, --version and --help;
# --server --daemonize starts rqlock's server detached, its pid in the file.
. "$(dirname "$0")/lib.sh"
need python3
cd "$TMP"
FIO=$(dirname "$RQLOCK")/rqlock-fio
[ -x "$FIO" ] || fail "no rqlock-fio beside $RQLOCK"
ln -s "$RQLOCK" "$TMP/fio"
printf '[f]\nioengine=null\nsize=1m\n' >f.fio
for exe in "$FIO" "$TMP/fio"; do
	"$exe" --output-format=json --max-jobs=16 f.fio >f.json 2>f.err || fail "$exe f.fio: $(cat f.err)"
	[ -s f.err ] && fail "$exe f.fio: stderr: $(cat f.err)"
	[ "$(json f.json 'j["jobs"][0]["read"]["io_bytes"]')" = 1048576 ] || fail "$exe f.fio: $(head -c 200 f.json)"
	"$exe" --name=c --ioengine=null --size=64k --minimal >c.out 2>c.err || fail "$exe --name=c: $(cat c.err)"
	grep -q '^3;rqlock-[^;]*;c;' c.out || fail "$exe --name=c: $(cat c.out)"
	[ "$("$exe" --version)" = "$("$RQLOCK" --version)" ] || fail "$exe --version: $("$exe" --version)"
	"$exe" --help | grep -q -- '--lock=MODE' || fail "$exe --help"
	# `run` is a job file here, as fio would take it
	rc=0
	"$exe" run >/dev/null 2>r.err || rc=$?
	[ "$rc" -eq 2 ] && grep -q '^run: cannot open' r.err || fail "$exe run: exit $rc: $(cat r.err)"
done
# the environment sets the lock mode for an unchanged fio command line
RQLOCK_LOCK=mq "$FIO" --output-format=json f.fio >m.json 2>m.err || fail "RQLOCK_LOCK=mq: $(cat m.err)"
[ "$(json m.json 'j["rqlock"]["lock_mode"]')" = mq ] || fail "RQLOCK_LOCK=mq through rqlock-fio"
# no arguments: usage on stderr, exit 2, as a bad command line
rc=0
"$FIO" >/dev/null 2>u.err || rc=$?
[ "$rc" -eq 2 ] && grep -q usage u.err || fail "no arguments: exit $rc"

# --server --daemonize: detached, the pid file names the live server
sock=$TMP/s.sock
"$FIO" --server="sock:$sock" --daemonize="$TMP/pid" 2>d.err || fail "--daemonize: $(cat d.err)"
pid=$(cat "$TMP/pid" 2>/dev/null)
[ -n "$pid" ] || fail "--daemonize: no pid file"
cleanup_hooks+=("kill $pid 2>/dev/null")
for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.05; done
[ -S "$sock" ] || fail "the daemonized server made no socket"
kill -0 "$pid" || fail "the pid file's process is not alive"
tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--server=sock:$sock" || fail "pid $pid is not the server"
if command -v fio >/dev/null; then
	fio --client="sock:$sock" --output-format=json f.fio >cl.json 2>cl.err || fail "fio --client: $(cat cl.err)"
	grep -q '"rqlock' cl.json || grep -q '"jobname" : "f"' cl.json || fail "fio --client: $(head -c 300 cl.json)"
fi
kill "$pid"
echo PASS
