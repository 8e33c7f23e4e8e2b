#!/usr/bin/env bash
# verify_state_save / verify_state_load and experimental_verify (issue 26):
# a writer stopped mid-run leaves its state; a verify_only run that loads
# it checks only the writes that completed (without it, the same run fails
# on the blocks never written), and still finds a block changed since.
# experimental_verify passes a clean file with overwrites (norandommap,
# loops).  A bad state file (truncated, wrong crc, another job's) is
# one line naming the file, exit 2.
. "$(dirname "$0")/lib.sh"

cd "$TMP" || fail "cd $TMP"
f=$TMP/vs
job() {	# NAME EXTRA...: a 4 MiB randwrite verify job
	local name=$1; shift
	printf '[%s]\nfilename=%s\nfilesize=4M\nbs=4096\nrw=randwrite\nverify=crc32c\nioengine=psync\n' "$name" "$f"
	printf '%s\n' "$@"
}
run() {	# JOBFILE: rc in $rc, json in $TMP/out.json, stderr in $TMP/err
	"$RQLOCK" run --output-format=json --output "$TMP/out.json" "$1" 2>"$TMP/err"
	rc=$?
}

# 1. a writer stopped by its runtime after a part of its writes
job w do_verify=0 rate_iops=400 runtime=1 >"$TMP/w.fio"
run "$TMP/w.fio"
[ $rc -eq 0 ] || { cat "$TMP/err" >&2; fail "writer: exit $rc"; }
[ -f local-w-0-verify.state ] || fail "no local-w-0-verify.state"
n=$(python3 -c "import struct; d=open('local-w-0-verify.state','rb').read(); print(struct.unpack_from('<Q', d, 24+16)[0])")
[ "$n" -gt 0 ] && [ "$n" -lt 1024 ] || fail "state says $n writes, expected a part of 1024"

job w verify_only=1 verify_state_load=1 >"$TMP/v.fio"
run "$TMP/v.fio"
[ $rc -eq 0 ] || { head -3 "$TMP/err" >&2; fail "verify_only with the state: exit $rc"; }
got=$(json "$TMP/out.json" "j['jobs'][0]['read']['io_bytes']")
[ "$got" -gt 0 ] && [ "$got" -le $((n * 4096)) ] || fail "read back $got bytes for $n writes"
# without the state the same check reads blocks never written: it must fail
job w verify_only=1 >"$TMP/nv.fio"
run "$TMP/nv.fio"
[ $rc -eq 1 ] || fail "verify_only without the state: exit $rc, expected 1 (unwritten blocks)"

# 2. a completed block changed after the save: still found
off=$(python3 -c "import struct; d=open('local-w-0-verify.state','rb').read(); print(struct.unpack_from('<Q', d, 24+152+8)[0])")
printf '\xff' | dd of="$f" bs=1 seek=$((off + 100)) conv=notrunc status=none
run "$TMP/v.fio"
[ $rc -eq 1 ] || fail "a flipped byte after the save: exit $rc, expected 1"
grep -q "offset $off" "$TMP/err" || { cat "$TMP/err" >&2; fail "flipped byte at $off not named"; }

# 3. bad state files: one line, exit 2
cp local-w-0-verify.state good.state
bad() {	# WHAT
	run "$TMP/v.fio"
	[ $rc -eq 2 ] || fail "$1: exit $rc, expected 2"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "$1: not one line"; }
	grep -q "local-w-0-verify.state" "$TMP/err" || fail "$1: the file is not named"
	cp good.state local-w-0-verify.state
}
truncate -s 100 local-w-0-verify.state; bad truncated
printf '\x01' | dd of=local-w-0-verify.state bs=1 seek=60 conv=notrunc status=none; bad "wrong crc"
job other do_verify=0 rate_iops=400 runtime=1 >"$TMP/o.fio"
run "$TMP/o.fio"
cp local-other-0-verify.state local-w-0-verify.state; bad "another job's state"
rm -f local-w-0-verify.state; bad "no state file"

# 4. experimental_verify: a clean file passes, random with overwrites (norandommap, loops)
job x experimental_verify=1 norandommap=1 loops=2 >"$TMP/x.fio"
run "$TMP/x.fio"
[ $rc -eq 0 ] || { head -3 "$TMP/err" >&2; fail "experimental_verify on a clean run: exit $rc"; }
got=$(json "$TMP/out.json" "j['jobs'][0]['read']['io_bytes']")
[ "$got" -gt 0 ] || fail "experimental_verify read nothing back"
# ... and with the random map over loops=2 (fio's t0026): the replay goes
# through both passes; it stopped after the first and spun until killed
job x2 experimental_verify=1 loops=2 >"$TMP/x2.fio"
timeout 120 "$RQLOCK" run --output-format=json --output "$TMP/out.json" "$TMP/x2.fio" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] || { head -3 "$TMP/err" >&2; fail "experimental_verify, loops=2: exit $rc (124: it spun)"; }
got=$(json "$TMP/out.json" "j['jobs'][0]['read']['io_bytes']")
[ "$got" -eq $((4 << 20)) ] || fail "experimental_verify, loops=2: read back $got bytes, want the file's 4 MiB"
# ... and a mix (fio's t0026, job2): the replay draws the writer's directions again, so its
# offsets; with the directions' stream left where the writer ended it read blocks never
# written there ('stale block ... a lost write')
job x3 experimental_verify=1 rw=randrw size=1m loops=2 >"$TMP/x3.fio"
run "$TMP/x3.fio"
[ $rc -eq 0 ] || { head -3 "$TMP/err" >&2; fail "experimental_verify, randrw: exit $rc"; }
got=$(json "$TMP/out.json" "j['jobs'][0]['write']['io_bytes']")
[ "$got" -gt 0 ] || fail "experimental_verify, randrw: wrote nothing"
echo "PASS"
