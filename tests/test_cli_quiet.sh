#!/usr/bin/env bash
# test_cli_quiet: a clean run writes nothing to stderr that fio 3.33 would
# not (issue 26; fio's run-fio-tests.py requires an empty stderr).  The
# layout note is fio's, in the normal output (stdout, or the --output file
# ahead of the report), and nowhere in JSON; options without effect in
# rqlock (thread, ...) are accepted silently by a run and noted by
# --parse-only, the checker.
. "$(dirname "$0")/lib.sh"
need python3
cd "$TMP"
printf '[lay]\nfilename=%s\nsize=2m\nrw=read\nthread\nclocksource=gettimeofday\n' "$TMP/data" >j.fio
"$RQLOCK" run j.fio >n.out 2>n.err || fail "normal run: $(cat n.err)"
[ -s n.err ] && fail "a clean run wrote to stderr: $(cat n.err)"
head -1 n.out | grep -qx 'lay: Laying out IO file (1 file / 2MiB)' || fail "no layout note first on stdout: $(head -2 n.out)"
# laid out already: no note the second time, as fio
"$RQLOCK" run j.fio >n2.out 2>n2.err || fail "second run: $(cat n2.err)"
grep -q 'Laying out' n2.out && fail "a note for a file laid out already"
rm -f "$TMP/data"
# --output: the note heads the file, stdout stays empty
"$RQLOCK" run --output=o.txt j.fio >o.out 2>o.err || fail "--output: $(cat o.err)"
[ -s o.out ] || [ -s o.err ] && fail "--output: stdout or stderr written: $(cat o.out o.err)"
head -1 o.txt | grep -q 'Laying out IO file' || fail "--output: the note is not in the file: $(head -2 o.txt)"
rm -f "$TMP/data"
# JSON: nothing but JSON on stdout, nothing on stderr
"$RQLOCK" run --output-format=json j.fio >j.json 2>j.err || fail "json: $(cat j.err)"
[ -s j.err ] && fail "json run wrote to stderr: $(cat j.err)"
json j.json 'j["jobs"][0]["jobname"]' >/dev/null || fail "stdout is not JSON: $(head -c 200 j.json)"
# the same job through the command line, and a sync engine at depth 8 (note: normal output only)
"$RQLOCK" run --name=s --ioengine=psync --iodepth=8 --filename=@null0 --size=64k --thread \
	--output-format=json >s.json 2>s.err || fail "psync: $(cat s.err)"
[ -s s.err ] && fail "psync wrote to stderr: $(cat s.err)"
# --parse-only is the checker: it notes what has no effect
"$RQLOCK" run --parse-only j.fio 2>p.err || fail "--parse-only: $(cat p.err)"
grep -q "option 'thread' has no effect" p.err || fail "--parse-only: no note on thread: $(cat p.err)"
# a genuine warning that fio prints too stays on stderr
"$RQLOCK" run --name=w --ioengine=null --size=64k --time_based --minimal >/dev/null 2>w.err || fail "time_based"
grep -q 'time_based without runtime' w.err || fail "the time_based warning is gone: $(cat w.err)"
echo PASS
