#!/usr/bin/env bash
# Bad job files in fio's syntax: each gives exit status 2, exactly one line
# on stderr naming the file and line, nothing on stdout - with run,
# --parse-only and --showcmd alike.  Good files: --parse-only prints
# nothing and exits 0, --showcmd prints fio's command line.
. "$(dirname "$0")/lib.sh"

# bad NAME PATTERN TEXT [ARGS...]: job text TEXT in $TMP/NAME.fio must fail with PATTERN
bad() {
	local name=$1 pat=$2 text=$3 mode rc; shift 3
	printf '%b' "$text" >"$TMP/$name.fio"
	for mode in "" --parse-only --showcmd; do
		rc=0
		"$RQLOCK" run $mode "$@" "$TMP/$name.fio" >"$TMP/out" 2>"$TMP/err" || rc=$?
		[ $rc -eq 2 ] || fail "$name $mode: exit $rc, expected 2 (stderr: $(cat "$TMP/err"))"
		[ ! -s "$TMP/out" ] || fail "$name $mode: stdout not empty: $(cat "$TMP/out")"
		[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$name $mode: expected one stderr line, got: $(cat "$TMP/err")"
		grep -qE -- "$pat" "$TMP/err" || fail "$name $mode: stderr '$(cat "$TMP/err")' does not match '$pat'"
	done
}

printf 'iodepth=4\n[x]\n' >"$TMP/sect.inc"
printf 'bs=oops\n' >"$TMP/badval.inc"
bad include-missing "include-missing.fio:4: include .*no-such.inc: cannot open" '[global]\nioengine=null\n[a]\ninclude no-such.inc\n'
bad include-section "sect.inc:2: an included file cannot hold a section" '[a]\nioengine=null\ninclude sect.inc\n'
bad include-badval "badval.inc:1: bad value 'oops' for option 'bs'" '[a]\nioengine=null\ninclude badval.inc\n'
bad include-outside "include-outside.fio:1: 'include' outside" 'include sect.inc\n[a]\n'
bad unknown "unknown.fio:3: unknown option 'iodepht' \\(did you mean 'iodepth'\\?\\)" '[a]\nioengine=null\niodepht=4\n'
bad refused "refused.fio:3: option 'max_latency' is not supported in rqlock" '[a]\nioengine=null\nmax_latency=10m\n'
bad only-default "only-default.fio:2: option 'bwavgtime=250' is not supported in rqlock, only bwavgtime=500" '[a]\nbwavgtime=250\n'
bad bssplit "bssplit.fio:2: bad value .* for option 'bssplit': the shares add up to more than 100" '[a]\nbssplit=4k/70:8k/40\n'
bad bsrange "bsrange.fio:2: .*'bsrange'" '[a]\nbsrange=4k\n'
bad rw-postfix "rw-postfix.fio:2: bad value '0' for option 'rw'" '[a]\nrw=randread:0\n'
bad percentile "percentile.fio:2: .*'percentile_list'" '[a]\npercentile_list=0:50\n'
bad size-pct "size-pct.fio:2: .*'size'" '[a]\nsize=150%\n'
bad hipri "hipri.fio:3: option 'hipri' belongs to fio's io_uring engines" '[a]\nioengine=null\nhipri\n'
bad ncpus "ncpus.fio:2: .*division by zero" '[a]\nnumjobs=$ncpus/0\n'
bad wait-for "wait-for.fio:1: job 'a': wait_for=b names no job before it" '[a]\nwait_for=b\n[b]\n'
bad dist "dist.fio:2: .*zipf theta must not be 1" '[a]\nrandom_distribution=zipf:1\n'
bad cpus "cpus.fio:2: .*CPU 1023 too large" '[a]\ncpus_allowed=1023\n'
bad engine "engine.fio:2: ioengine=vsync is not supported in rqlock" '[a]\nioengine=vsync\n'
bad engine-opt "engine-opt.fio:3: option 'program' belongs to fio's ioengine=exec" '[a]\nioengine=null\nprogram=/bin/true\n'
bad zoned "zoned.fio:2: .*the access shares must add up to 100" '[a]\nrandom_distribution=zoned:50/10:40/10\n'
bad section "section.fio: no job section selected by --section" '[a]\nioengine=null\n' --section=zz
bad group-lat "group-lat.fio:5: job 'b': lat_percentiles differs" '[global]\ngroup_reporting\n[a]\nioengine=null\n[b]\nioengine=null\nlat_percentiles=1\n'

# good files
printf '[global]\nioengine=null\nsize=1m\n[a]\nrw=randread:4\n[b]\nwait_for=a\nbssplit=4k/50:8k\n' >"$TMP/good.fio"
"$RQLOCK" run --parse-only "$TMP/good.fio" >"$TMP/out" 2>"$TMP/err" || fail "parse-only of a good file: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ] || fail "parse-only printed something: $(cat "$TMP/out" "$TMP/err")"
"$RQLOCK" run --showcmd "$TMP/good.fio" >"$TMP/out" 2>"$TMP/err" || fail "showcmd of a good file: $(cat "$TMP/err")"
grep -q '^fio --name=a .*--rw=randread:4' "$TMP/out" || fail "showcmd: $(cat "$TMP/out")"
grep -q -- '--name=b .*--wait_for=a --bssplit=4096/50:8192/50,4096/50:8192/50' "$TMP/out" || fail "showcmd: $(cat "$TMP/out")"
"$RQLOCK" run --showcmd --section=b "$TMP/good.fio" >"$TMP/out" 2>"$TMP/err" && fail "--section=b alone: wait_for=a has no job a"
grep -q "wait_for=a names no job before it" "$TMP/err" || fail "--section=b: $(cat "$TMP/err")"
# a warning keeps the file good: one line on stderr, exit 0
printf '[a]\nioengine=null\ntime_based\n' >"$TMP/warn.fio"
"$RQLOCK" run --parse-only "$TMP/warn.fio" >"$TMP/out" 2>"$TMP/err" || fail "a warning failed the parse"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "warn.fio:1: warning: job 'a': time_based without runtime" "$TMP/err" \
	|| fail "warning: $(cat "$TMP/err")"
echo "test_fio_badjob: ok"
