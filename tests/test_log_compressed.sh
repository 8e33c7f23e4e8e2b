#!/usr/bin/env bash
# test_log_compressed: log_store_compressed=1 writes fio's NAME.log.fz
# (zlib streams of fio's binary samples) and `rqlock run --inflate-log`
# prints it as text: the same lines as an uncompressed log of the same job
# (a sequential job's IOPS log per I/O with offsets: value, direction, size and offset are
# deterministic; the time column is not and is left out), with and without
# log_offset, in one stream and in many (log_compression=4k).  Where fio is
# installed, fio --inflate-log reads rqlock's file to the same bytes, and
# rqlock reads fio's.  A file that is not a compressed log, or is cut
# short: one line on stderr, exit 2, nothing on stdout.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || fail "cd $TMP"

job=(--name=j --ioengine=null --size=4m --bs=16k --rw=write --iodepth=1
     --write_iops_log=L --per_job_logs=0)
for off in 1 0; do
	for chunk in 0 4k; do
		rm -f L_iops.log L_iops.log.fz
		"$RQLOCK" run "${job[@]}" --log_offset=$off >/dev/null 2>p.err ||
			fail "plain log run: $(cat p.err)"
		gz=(--log_store_compressed=1)
		[ "$chunk" = 0 ] || gz+=(--log_compression=$chunk)
		"$RQLOCK" run "${job[@]}" --log_offset=$off "${gz[@]}" >/dev/null 2>z.err ||
			fail "compressed log run: $(cat z.err)"
		[ -s L_iops.log.fz ] || fail "log_store_compressed wrote no L_iops.log.fz"
		python3 -c 'import sys,zlib; zlib.decompressobj().decompress(open(sys.argv[1],"rb").read()[:64])' \
			L_iops.log.fz 2>/dev/null || fail "L_iops.log.fz does not start with a zlib stream"
		"$RQLOCK" run --inflate-log=L_iops.log.fz >inflated 2>i.err || fail "--inflate-log: $(cat i.err)"
		[ -s i.err ] && fail "--inflate-log wrote stderr: $(cat i.err)"
		[ "$(wc -l <inflated)" = 256 ] || fail "offset=$off chunk=$chunk: $(wc -l <inflated) lines, expected 256"
		cut -d, -f2- L_iops.log >plain.cols
		cut -d, -f2- inflated >inflated.cols
		cmp -s plain.cols inflated.cols ||
			fail "log_offset=$off log_compression=$chunk: inflated lines differ: $(diff plain.cols inflated.cols | head -4)"
		if command -v fio >/dev/null; then
			fio --inflate-log=L_iops.log.fz >fio.inflated 2>/dev/null || fail "fio cannot inflate rqlock's .fz"
			cmp -s fio.inflated inflated || fail "fio inflates rqlock's .fz to other lines"
		fi
	done
done
if command -v fio >/dev/null; then
	rm -f F_iops.log.fz
	fio --name=f --ioengine=null --size=1m --bs=64k --rw=write --write_iops_log=F --per_job_logs=0 \
		--log_offset=1 --log_store_compressed=1 >/dev/null 2>&1 || fail "fio's compressed log run"
	fio --inflate-log=F_iops.log.fz >fio.lines 2>/dev/null
	"$RQLOCK" run --inflate-log=F_iops.log.fz >rq.lines 2>i.err || fail "rqlock cannot inflate fio's .fz: $(cat i.err)"
	cmp -s fio.lines rq.lines || fail "rqlock inflates fio's .fz to other lines: $(diff fio.lines rq.lines | head -4)"
fi

bad() {
	local rc=0
	"$RQLOCK" run --inflate-log="$1" >bad.out 2>bad.err || rc=$?
	[ "$rc" -eq 2 ] || fail "--inflate-log=$1: exit $rc, expected 2: $(cat bad.err)"
	[ "$(wc -l <bad.err)" -eq 1 ] || fail "--inflate-log=$1: not one line: $(cat bad.err)"
	grep -qF "$1" bad.err || fail "--inflate-log=$1: the line does not name the file: $(cat bad.err)"
	[ -s bad.out ] && fail "--inflate-log=$1: wrote stdout"
	return 0
}
printf 'this is not a compressed log\n' >garbage.fz
bad garbage.fz
head -c 40 L_iops.log.fz >short.fz
bad short.fz
bad no-such-file.fz
# the histogram log has no .fz form in fio: refused, nothing written
rc=0
"$RQLOCK" run --name=h --ioengine=null --size=1m --write_hist_log=H --log_hist_msec=10 \
	--log_store_compressed=1 >h.out 2>h.err || rc=$?
[ "$rc" = 2 ] || fail "log_store_compressed with write_hist_log: exit $rc, expected 2: $(cat h.err)"
ls H_* >/dev/null 2>&1 && fail "a refused job wrote a histogram log"
echo "test_log_compressed: ok"
