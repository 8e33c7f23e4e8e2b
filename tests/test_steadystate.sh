#!/usr/bin/env bash
# Steady state without fio (issue 34; test_fio_steadystate compares with
# fio 3.33): a job at a fixed rate_iops with ss=iops:10% over 2 s is
# judged steady and ends long before its 60 s runtime, in every lock mode
# (and not before its window could fill: 1 s); without ss_dur, ss changes
# nothing and no "steadystate" object is written, as fio; json+ and the
# normal output (also --status-interval's) carry it, terse does not; and
# bad values are one line naming the file, line and option, exit 2,
# nothing written.  Before issue 34 ss was inert: every job ran its
# runtime out and no object was written.
. "$(dirname "$0")/lib.sh"
need python3
cd "$TMP" || fail "cd $TMP"

head='[global]\nioengine=null\nsize=1g\nrw=randread\ntime_based\nrate_iops=200\n[s]\n'
printf "$head"'runtime=60\nss=iops:10%%\nss_dur=2\n' >steady.fio
for m in $(rq_modes); do
	"$RQLOCK" run --lock="$m" --output-format=json+ steady.fio >"steady.$m.json" 2>err ||
		fail "steady --lock=$m: $(cat err)"
	python3 - "steady.$m.json" "$m" <<'PY' || fail "steady --lock=$m (above)"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
s, ms = j.get("steadystate"), j["read"]["runtime"]
if not s or s["attained"] != 1 or s["ss"] != "iops:10.000000%" or s["duration"] != 2:
    sys.exit("steadystate %r" % s)
# ends at the window's first verdict: after 1 s at least, far before 60 s
if not 1000 <= ms <= 15000:
    sys.exit("ran %d ms" % ms)
print("ok: --lock=%s: attained after %d ms, iops %s" % (sys.argv[2], ms, s["data"]["iops"]))
PY
done

# no ss_dur: no detection, no object (fio's default window is 0)
printf "$head"'runtime=1\nss=iops:10%%\n' >off.fio
"$RQLOCK" run --output-format=json off.fio >off.json 2>err || fail "off: $(cat err)"
[ "$(json off.json '"steadystate" in j["jobs"][0]')" = False ] || fail "off: a steadystate object without ss_dur"
[ "$(json off.json 'j["jobs"][0]["read"]["runtime"] >= 950')" = True ] || fail "off: ended before its runtime"

# the normal line, in the status dumps too; none in terse
"$RQLOCK" run --status-interval=1 steady.fio >steady.txt 2>err || fail "normal: $(cat err)"
n=$(grep -cE '^  steadystate  : attained=(yes|no), bw=[0-9.]+[kK]i?B/s \([0-9.]+[kK]i?B/s\), iops=[0-9]+, iops mean dev=[0-9]+\.[0-9]{3}%$' steady.txt)
[ "$n" -ge 2 ] || fail "normal: $n steadystate lines (a dump and the report): $(grep steadystate steady.txt)"
grep -q 'attained=yes' steady.txt || fail "normal: not attained"
"$RQLOCK" run --output-format=terse steady.fio >steady.terse 2>err || fail "terse: $(cat err)"
[ "$(grep -c ';' steady.terse)" -eq 1 ] || fail "terse: $(cat steady.terse)"

# bad values: one line with the file, line and option, exit 2, nothing written
expect() {	# expect NAME OPTION PATTERN
	local rc=0
	printf "$head"'runtime=1\nss_dur=2\n%s\n' "$2" >"$1.fio"
	"$RQLOCK" run --output "$TMP/r.json" "$1.fio" >out 2>err || rc=$?
	[ $rc -eq 2 ] || fail "$1: exit $rc, want 2 ($(cat err))"
	[ ! -s out ] && [ ! -e r.json ] || fail "$1: something was written"
	[ "$(wc -l <err)" -eq 1 ] && grep -qE "^$1.fio:10: .*$3" err || fail "$1: $(cat err)"
	echo "ok: $1: $(cat err)"
}
expect nolimit ss=iops "'ss'.*needs a limit"
expect criterion ss=iops_mean:1 "'iops_mean' for option 'ss' \(valid: iops, iops_slope, bw, bw_slope\)"
expect limit ss=iops:ten "'ten' for option 'ss'"
expect negative ss=bw_slope:-1 "'-1' for option 'ss'"
expect size ss=bw:1q "'1q' for option 'ss'"
expect pct "ss=iops:5%x" "'5%x' for option 'ss'.*'%'"
expect dur ss_dur=soon "'soon' for option 'ss_dur'"
expect ramp ss_ramp=-2 "'-2' for option 'ss_ramp'"
echo "test_steadystate: ok"
