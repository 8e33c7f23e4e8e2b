#!/usr/bin/env bash
# Bad input: one line on stderr naming the problem, exit status 2, nothing
# on stdout, no file written (neither the --output file nor a job's file).
. "$(dirname "$0")/lib.sh"

# expect NAME PATTERN ARGS...: rqlock ARGS must fail with status 2 and one
# stderr line matching PATTERN
expect() {
	local name=$1 pat=$2; shift 2
	local rc=0
	"$RQLOCK" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ $rc -eq 2 ] || fail "$name: exit $rc, expected 2 (stderr: $(cat "$TMP/err"))"
	[ ! -s "$TMP/out" ] || fail "$name: stdout not empty: $(cat "$TMP/out")"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$name: expected one stderr line, got: $(cat "$TMP/err")"
	grep -qE -- "$pat" "$TMP/err" || fail "$name: stderr '$(cat "$TMP/err")' does not match '$pat'"
	[ ! -e "$TMP/result.json" ] || fail "$name: output file written"
}

out=(--output "$TMP/result.json")
expect missing-file "nope.fio.*(No such file|cannot open)" run "${out[@]}" "$TMP/nope.fio"

printf '[a]\nioengine=null\nsize=1m\niodepht=4\n' >"$TMP/unknown.fio"
expect unknown-option "unknown.fio:4.*iodepht" run "${out[@]}" "$TMP/unknown.fio"

printf '[a]\nfilename=%s\nsize=1m\nbs=1000\ndirect=1\nrw=write\n' "$TMP/new.dat" >"$TMP/align.fio"
expect misaligned-bs "align.fio:1.*bs=1000.*logical block size" run "${out[@]}" "$TMP/align.fio"
[ ! -e "$TMP/new.dat" ] || fail "misaligned-bs: the job's file was created"

printf '[a]\nfilename=/dev/rqlock-no-such-device\nrw=read\n' >"$TMP/nodev.fio"
expect no-device "nodev.fio:1.*rqlock-no-such-device" run "${out[@]}" "$TMP/nodev.fio"

printf '[a]\nfilename=%s/no/such/dir/f\nsize=1m\nrw=write\n' "$TMP" >"$TMP/nodir.fio"
expect no-dir "nodir.fio:1.*directory does not exist" run "${out[@]}" "$TMP/nodir.fio"

printf '[a]\nfilename=@tape9\nrw=read\n' >"$TMP/builtin.fio"
expect unknown-builtin "builtin.fio:1.*@tape9" run "${out[@]}" "$TMP/builtin.fio"

printf '[a]\nioengine=null\nsize=1m\n' >"$TMP/ok.fio"
expect bad-lock "--lock=bogus" run --lock=bogus "${out[@]}" "$TMP/ok.fio"
expect bad-workers "--workers=0" run --workers 0 "${out[@]}" "$TMP/ok.fio"
expect bad-format "--output-format=xml" run --output-format=xml "${out[@]}" "$TMP/ok.fio"
expect no-jobfile "no job file" run "${out[@]}"
expect bad-command "unknown command" frobnicate
expect bad-output-dir "--output.*$TMP/no/dir" run --output "$TMP/no/dir/r.json" "$TMP/ok.fio"

# resource limits: buffers beyond the machine, a tiny RLIMIT_AS
printf '[a]\nioengine=null\nsize=64g\niodepth=65536\nbs=16m\n' >"$TMP/huge.fio"
expect huge-buffers "huge.fio:1.*MiB of buffers" run "${out[@]}" "$TMP/huge.fio"
printf '[a]\nioengine=null\nsize=1g\niodepth=1024\nbs=1m\n' >"$TMP/as.fio"
# (not under ASan/TSan: their shadow memory alone exceeds any small RLIMIT_AS)
if ! ldd "$RQLOCK" | grep -qE 'lib[at]san'; then
	rc=0; (ulimit -v 400000; exec "$RQLOCK" run "${out[@]}" "$TMP/as.fio") >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ $rc -eq 2 ] || fail "rlimit-as: exit $rc, expected 2: $(cat "$TMP/err")"
	grep -q "RLIMIT_AS" "$TMP/err" || fail "rlimit-as: $(cat "$TMP/err")"
fi
expect bad-stall "--stall-timeout=0" run --stall-timeout 0 "${out[@]}" "$TMP/ok.fio"

# the floppy's driver model (issue 12): an unknown driver, holds out of range
printf '[b]\nrw=randread\nbs=512\nfilename=@floppy0,driver=2.6\n' >"$TMP/fdrv.fio"
expect floppy-driver "fdrv.fio:1.*driver must be 2.4 or sync" run "${out[@]}" "$TMP/fdrv.fio"
printf '[b]\nfilename=@floppy0,driver=sync,busy_us=100001\nrw=randread\nbs=512\n' >"$TMP/fbusy.fio"
expect floppy-busy "fbusy.fio:1.*busy_us.*0..100000" run "${out[@]}" "$TMP/fbusy.fio"
printf '[b]\nfilename=@hdd0,end_us=200000\nrw=randread\nsize=1m\n' >"$TMP/hend.fio"
expect hdd-end "hend.fio:1.*end_us.*0..100000" run "${out[@]}" "$TMP/hend.fio"

# and a good run still works and writes its output
"$RQLOCK" run "${out[@]}" "$TMP/ok.fio" || fail "good job failed"
[ -s "$TMP/result.json" ] || fail "good job wrote no output"
echo "test_badinput: ok"

