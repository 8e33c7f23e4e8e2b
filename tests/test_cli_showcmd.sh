#!/usr/bin/env bash
# test_cli_showcmd: `rqlock run --showcmd X.fio` prints a fio command line
# that, fed back to `rqlock run`, runs the same jobs (issue 26): the same
# command line again, and the same jobs, groups and I/O in the report.
. "$(dirname "$0")/lib.sh"
need python3
cd "$TMP"
cat >x.fio <<'JOB'
[global]
ioengine=null
size=4m
bs=8k
[a]
rw=randread
iodepth=4
description=with blanks; and a semicolon
[b]
rw=write
stonewall
numjobs=2
bssplit=4k/50:16k/50
[c]
rw=randrw
rwmixread=70
rate_iops=2000
runtime=1
time_based
JOB
"$RQLOCK" run --showcmd x.fio >s1 2>s1.err || fail "--showcmd x.fio: $(cat s1.err)"
head -1 s1 | grep -q '^fio --name=a ' || fail "not a fio command line: $(head -1 s1)"
# the printed line, as a shell runs it, with rqlock run in place of fio
back() { eval "\"$RQLOCK\" run $(sed '1s/^fio //' s1) $*"; }
back --showcmd >s2 2>s2.err || fail "the command line back: $(cat s2.err)"
diff s1 s2 >d || fail "--showcmd of the command line differs: $(cat d)"
"$RQLOCK" run --output-format=json --output=file.json x.fio 2>f.err || fail "x.fio: $(cat f.err)"
back --output-format=json --output=cmd.json 2>c.err || fail "the command line run: $(cat c.err)"
[ -s c.err ] && fail "the command line run wrote to stderr: $(cat c.err)"
sig='[(x["jobname"], x["groupid"], x["read"]["io_bytes"] if x["jobname"] != "c" else 0, x["write"]["io_bytes"] if x["jobname"] != "c" else 0) for x in j["jobs"]]'
[ "$(json file.json "$sig")" = "$(json cmd.json "$sig")" ] ||
	fail "different jobs: file $(json file.json "$sig"), command line $(json cmd.json "$sig")"
[ "$(json cmd.json 'len(j["jobs"])')" = 4 ] || fail "expected 4 jobs (numjobs=2): $(json cmd.json "$sig")"
echo PASS
