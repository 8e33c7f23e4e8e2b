#!/usr/bin/env bash
# serialize_overlap=1 (fio's io_u_submit(), in_flight_overlap()): an I/O
# that overlaps one of the clone's I/Os in flight waits for it.  A 16 KiB
# region of 4 KiB blocks holds 4 blocks, so random writes at iodepth=16 with
# 2 ms completions keep 16 in flight without it and at most 4 with it:
# fio's iodepth_level bucket "8" (5..8) and above must be empty with it and
# not without.  Reads are not held (fio keeps the option only for a job
# that changes data), nor is anything at iodepth=1.  With
# io_submit_mode=offload fio compares across jobs on the same file too:
# rqlock refuses that where clones could share one (filename=), and runs
# it where each clone has its own files (fio's t0013), exit 0, stderr empty.
. "$(dirname "$0")/lib.sh"
need python3
depth() {	# depth RW SERIALIZE: the share of submissions at depth > 4, in percent
	"$RQLOCK" run --name=t --filename=@null0,delay_us=2000 --rw="$1" --size=16k --bs=4k --iodepth=16 \
		--norandommap --time_based --runtime=1 --serialize_overlap="$2" --output-format=json \
		--output "$TMP/o.json" || fail "rw=$1 serialize_overlap=$2: exit $?"
	json "$TMP/o.json" "sum(v for k, v in j['jobs'][0]['iodepth_level'].items() if k not in ('1', '2', '4'))"
}
off=$(depth randwrite 0) on=$(depth randwrite 1) rd=$(depth randread 1)
echo "submissions at depth > 4: writes ${off}% without, ${on}% with serialize_overlap; reads with it ${rd}%"
python3 -c "import sys; sys.exit(0 if float('$on') == 0 else 1)" || fail "serialize_overlap=1 let overlapping writes go together (${on}% above depth 4)"
python3 -c "import sys; sys.exit(0 if float('$off') > 10 else 1)" || fail "without serialize_overlap the writes never went deeper than 4: the test proves nothing"
python3 -c "import sys; sys.exit(0 if float('$rd') > 10 else 1)" || fail "reads were held back (fio does not hold a job that changes no data)"

# fio's t0013: offload, per-clone files: runs, and says nothing on stderr
printf '[test]\nioengine=null\nsize=4K\nblocksize=4K\nio_submit_mode=offload\niodepth=1\nserialize_overlap=1\nnumjobs=8\nloops=1000\nruntime=2\n' >"$TMP/t13.fio"
"$RQLOCK" run "$TMP/t13.fio" >"$TMP/t13.out" 2>"$TMP/t13.err" || { cat "$TMP/t13.err"; fail "t0013's job: exit $?"; }
[ ! -s "$TMP/t13.err" ] || { cat "$TMP/t13.err"; fail "t0013's job wrote to stderr"; }
# offload with a shared file: refused, one line naming the file and line
printf '[w]\nfilename=%s/f\nsize=64k\nrw=randwrite\niodepth=8\nio_submit_mode=offload\nserialize_overlap=1\n' "$TMP" >"$TMP/shared.fio"
"$RQLOCK" run "$TMP/shared.fio" >/dev/null 2>"$TMP/shared.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$TMP/shared.err")" = 1 ] && grep -q 'shared.fio:1: .*serialize_overlap=1 with io_submit_mode=offload' "$TMP/shared.err" \
	|| { cat "$TMP/shared.err"; fail "offload + serialize_overlap on a shared file: exit $rc"; }
[ ! -e "$TMP/f" ] || fail "the refused job created its file"
cat "$TMP/shared.err"
echo PASS
