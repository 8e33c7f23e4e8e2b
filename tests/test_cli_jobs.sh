#!/usr/bin/env bash
# test_cli_jobs: fio's command-line jobs (issue 26).  --name=X starts a job,
# every job option is --opt=value or --opt value, options before the first
# --name are global ones that the first job file starts from, options and
# job files come in any order, and fio's own flags are accepted as fio
# accepts them or refused with one line (exit 2, nothing written).
. "$(dirname "$0")/lib.sh"
need python3
cd "$TMP"
sc() { "$RQLOCK" run --showcmd "$@" 2>"$TMP/sc.err" || fail "--showcmd $*: exit $?: $(cat "$TMP/sc.err")"; }

# a command-line job is the job file's job
printf '[a]\nioengine=null\nsize=1m\nbs=8k\nrw=randread\n' >a.fio
[ "$(sc --name=a --ioengine=null --size=1m --bs=8k --rw=randread)" = "$(sc a.fio)" ] ||
	fail "--name=a ... is not a.fio: $(sc --name=a --ioengine=null --size=1m --bs=8k --rw=randread)"
# --opt value, -opt=value, and options after the job options
[ "$(sc --name a -ioengine=null --size 1m --bs=8k --rw randread)" = "$(sc a.fio)" ] ||
	fail "--opt value / -opt=value: $(sc --name a -ioengine=null --size 1m --bs=8k --rw randread)"
# a bare flag takes no value of the next argument
sc --name=t --ioengine=null --size=1m --time_based --runtime=1 --thread --group_reporting | grep -q -- '--time_based' ||
	fail "bare flags: $(cat "$TMP/sc.err")"

# global options before --name apply to the command-line jobs and the first file
printf '[f]\nioengine=null\nsize=1m\n' >f.fio
out=$(sc --bs=64k --name=c --ioengine=null --size=2m f.fio)
[ "$(echo "$out" | grep -c -- '--bs=65536,65536')" = 2 ] || fail "global --bs for both jobs: $out"
echo "$out" | head -1 | grep -q -- '^fio --name=c ' || fail "the command-line job comes first, as fio adds it first: $out"
# ... and not to the second file (fio resets its global options per file)
cp f.fio g.fio
out=$(sc --bs=64k f.fio g.fio)
[ "$(echo "$out" | grep -c -- '--bs=65536,65536')" = 1 ] || fail "global --bs reached the second file: $out"
# job files before options, as fio's getopt takes them
[ "$(sc f.fio --bs=64k)" = "$(sc --bs=64k f.fio)" ] || fail "a flag after the job file"
# --name=global... makes the options after it global again
out=$(sc --name=a --ioengine=null --size=1m --name=global --bs=16k --name=b --ioengine=null --size=1m)
echo "$out" | grep -- '--name=b' | grep -q -- '--bs=16384,16384' || fail "--name=global: $out"
echo "$out" | head -1 | grep -q -- '--bs=' && fail "--name=global reached back to job a: $out"

# the issue's command, on a file of our own (direct I/O where the file system has it)
args=(--name=t --filename="$TMP/f" --size=8m --rw=randread --bs=4k --ioengine=io_uring --iodepth=16
	--runtime=1 --time_based --output-format=json)
"$RQLOCK" run "${args[@]}" --direct=1 >t.json 2>t.err || "$RQLOCK" run "${args[@]}" >t.json 2>t.err ||
	fail "the issue's command: $(cat t.err)"
[ -s t.err ] && fail "the issue's command wrote to stderr: $(cat t.err)"
[ "$(json t.json 'j["jobs"][0]["jobname"] == "t" and j["jobs"][0]["read"]["total_ios"] > 0 and j["jobs"][0]["job options"]["rw"] == "randread"')" = True ] ||
	fail "the issue's command: $(head -c 300 t.json)"

# bad input: one line, exit 2, nothing on stdout
bad() {
	local rc=0
	"$RQLOCK" run "$@" >bad.out 2>bad.err || rc=$?
	[ "$rc" -eq 2 ] || fail "$*: exit $rc, expected 2: $(cat bad.err)"
	[ "$(wc -l <bad.err)" -eq 1 ] || fail "$*: not one line: $(cat bad.err)"
	[ -s bad.out ] && fail "$*: wrote stdout: $(cat bad.out)"
	return 0
}
bad --name=x --ioengine=null --size=1m --no_such_option=1
bad --name=x --ioengine=null --size
bad --bs=4k
bad --name=x --ioengine=null --size=1m --trigger-file=/tmp/x
bad --name=x --ioengine=null --size=1m --terse-version=5
bad --inflate-log=x.log.fz
# --readonly: a writing job is refused and nothing is written
bad --readonly --name=w --filename="$TMP/ro" --size=1m --rw=write
[ -e "$TMP/ro" ] && fail "--readonly: the file was created"
"$RQLOCK" run --readonly --name=r --ioengine=null --size=1m --rw=read --minimal >/dev/null 2>ro.err ||
	fail "--readonly refused a read job: $(cat ro.err)"

# fio's flags that cannot change the result are accepted
"$RQLOCK" run --max-jobs=16 --debug=io,file --alloc-size=8192 --eta-interval=2 --warnings-fatal \
	--name=x --ioengine=null --size=64k --minimal >acc.out 2>acc.err || fail "fio's flags: $(cat acc.err)"
[ -s acc.err ] && fail "fio's flags: stderr: $(cat acc.err)"
grep -q '^3;rqlock-[^;]*;x;' acc.out || fail "fio's flags: $(cat acc.out)"
# --append-terse: the normal report, then the terse line
"$RQLOCK" run --append-terse --name=x --ioengine=null --size=64k >at.out 2>&1 || fail "--append-terse"
grep -q 'Run status group 0' at.out && grep -q '^3;rqlock-[^;]*;x;' at.out || fail "--append-terse: $(cat at.out)"
# --warnings-fatal turns a warning fio prints too into the error
rc=0
"$RQLOCK" run --warnings-fatal --name=x --ioengine=null --size=64k --time_based >/dev/null 2>wf.err || rc=$?
[ "$rc" -eq 2 ] && grep -q 'time_based' wf.err || fail "--warnings-fatal: exit $rc: $(cat wf.err)"
# --bandwidth-log: fio's aggregate logs, every job's bandwidth summed
"$RQLOCK" run --bandwidth-log --ioengine=null --size=1t --time_based --runtime=1200ms --name=b1 --name=b2 \
	--rw=read --minimal >/dev/null 2>bw.err || fail "--bandwidth-log: $(cat bw.err)"
[ -s bw.err ] && fail "--bandwidth-log: stderr: $(cat bw.err)"
for d in read write trim; do [ -e "agg-${d}_bw.log" ] || fail "--bandwidth-log: no agg-${d}_bw.log"; done
python3 - <<'PY' || fail "agg-read_bw.log: $(cat agg-read_bw.log)"
rows = [[int(x) for x in l.split(",")] for l in open("agg-read_bw.log")]
assert len(rows) >= 2 and all(r[1] > 0 and r[2] == 0 for r in rows), rows
assert all(b[0] - a[0] >= 400 for a, b in zip(rows, rows[1:])), rows
PY
"$RQLOCK" run --bandwidth-log=mine --name=b --ioengine=null --size=1m --minimal >/dev/null 2>&1 &&
	[ -e mine-read_bw.log ] || fail "--bandwidth-log=mine"
# help: one option, all options, the engines
"$RQLOCK" run --cmdhelp=bs | grep -q 'alias: blocksize' || fail "--cmdhelp=bs"
[ "$("$RQLOCK" run --cmdhelp | wc -l)" -gt 100 ] || fail "--cmdhelp"
# the default comes from the table's .def: its own line for one option (as fio), the list's suffix
one=$("$RQLOCK" run --cmdhelp=iodepth)
echo "$one" | grep -qx ' *default: 1' || fail "--cmdhelp=iodepth: no 'default: 1' line"
echo "$one" | grep 'description:' | grep -q 'default' && fail "--cmdhelp=iodepth: the default twice"
"$RQLOCK" run --cmdhelp | grep -q '^iodepth  *: .*(default: 1)$' || fail "--cmdhelp: iodepth's default"
"$RQLOCK" run --enghelp | grep -qx $'\tio_uring' || fail "--enghelp"
"$RQLOCK" run --enghelp=io_uring | grep -q '^hipri' || fail "--enghelp=io_uring"
echo PASS
