#!/usr/bin/env bash
# issue 34: read_iolog refused blktrace binary traces.  rqlock replays them
# as fio 3.33 does; blktrace cannot capture here (debugfs says EPERM), so
# tests/blktrace_gen.py writes the traces: 200 queue events of reads,
# writes, trims and flushes over three devices, with the block layer's
# other events, notifies and pdus around them, in both byte orders.
#  - every lock mode replays exactly the generated I/Os (JSON bytes and
#    counts per direction, sync count; write_iolog's list in order), on
#    the null engine and on a file (replay_redirect);
#  - fio 3.33 replays the same traces with the same bytes and counts, and
#    the same (direction, length, offset) sequence in its latency log:
#    plainly, with replay_skip, replay_scale and replay_align, numjobs
#    over two traces, a 0-byte read (one warning);
#  - no I/O is issued before the trace's time step (replay_time_scale);
#    a job without iodepth takes the trace's depth;
#  - bad traces: one line naming the trace and the record, exit 2,
#    nothing written.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/blktrace_lib.sh"
# the generated I/Os as write_iolog lists them: "ACTION OFFSET LENGTH"
want_ios() {
	python3 -c 'import json, sys
for op, _ma, _mi, off, n, _t in json.load(open(sys.argv[1]))["ios"]:
    print(op, 0 if op == "sync" else off, n)' "$1"
}
rq() {	# NAME ARGS...: rqlock run, JSON in $TMP/NAME.json, quiet stderr
	local n=$1
	shift
	"$RQLOCK" run --name=r --output-format=json "$@" >"$TMP/$n.json" 2>"$TMP/$n.err" ||
		{ cat "$TMP/$n.err" >&2; fail "$n: rqlock exit"; }
	[ ! -s "$TMP/$n.err" ] || fail "$n: stderr: $(head -1 "$TMP/$n.err")"
}
fio_run() {	# NAME ARGS...: fio 3.33, JSON in $TMP/NAME.fio.json
	local n=$1
	shift
	fio --name=r --output-format=json --output="$TMP/$n.fio.json" "$@" 2>"$TMP/$n.fio.err" ||
		fail "$n: fio exit: $(head -1 "$TMP/$n.fio.err")"
}

modes=$(rq_modes)
[ -n "$modes" ] || fail "no lock modes from rqlock --list"

# ---- every lock mode, both byte orders: exactly the generated I/Os ----
for order in little big; do
	t=$TMP/$order.bin
	python3 "$GEN" "$t" $([ $order = big ] && echo --big) --devices 8:0,8:16,259:3 --expect "$TMP/$order.e.json" ||
		fail "generator"
	w=$(want "$TMP/$order.e.json")
	[ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["ios"]))' "$TMP/$order.e.json")" = 200 ] ||
		fail "the generator wrote no 200 queue events"
	for m in $modes; do
		rq "$order.null.$m" --lock="$m" --read_iolog="$t" --replay_redirect="$TMP/f" --ioengine=null
		[ "$(counts "$TMP/$order.null.$m.json")" = "$w" ] ||
			fail "$order/$m/null: $(counts "$TMP/$order.null.$m.json"), generated $w"
		rm -f "$TMP/f" "$TMP/w.log"
		rq "$order.file.$m" --lock="$m" --read_iolog="$t" --replay_redirect="$TMP/f" --write_iolog="$TMP/w.log"
		[ "$(counts "$TMP/$order.file.$m.json")" = "$w" ] ||
			fail "$order/$m/file: $(counts "$TMP/$order.file.$m.json"), generated $w"
		diff -u <(want_ios "$TMP/$order.e.json") <(ios "$TMP/w.log") >&2 ||
			fail "$order/$m: the replay issued other I/Os than the trace's"
	done
	echo "ok: $order-endian trace, $modes: $w"
	if [ -n "$FIO" ]; then
		fio_run "$order" --read_iolog="$t" --replay_redirect="$TMP/f" --ioengine=null
		[ "$(counts "$TMP/$order.fio.json")" = "$w" ] ||
			fail "$order: fio 3.33 replayed $(counts "$TMP/$order.fio.json"), generated $w"
	fi
done

# ---- against fio 3.33: the same I/Os in the same order, with the replay options ----
# (fio 3.33 trims only block devices, ENOTTY on a file: these traces have no trims)
python3 "$GEN" "$TMP/rw.bin" --ops read,write,sync --devices 8:0,8:32 --seed 7 --expect "$TMP/rw.e.json" ||
	fail "generator"
python3 "$GEN" "$TMP/rw2.bin" --ops read,write --seed 8 --count 40 --big --expect "$TMP/rw2.e.json" ||
	fail "generator"
cmp_fio() {	# NAME ARGS...: rqlock and fio 3.33 (psync, one at a time) replay alike
	local n=$1
	shift
	# fio 3.33 lays no replayed file out: it reads past the end of a new one (EIO)
	rm -f "$TMP/f" "$TMP"/lat_* "$TMP"/flat_*
	truncate -s 16M "$TMP/f"
	rq "$n" --ioengine=psync --replay_redirect="$TMP/f" --write_lat_log="$TMP/lat" --log_offset=1 "$@"
	[ -z "$FIO" ] && return
	fio_run "$n" --ioengine=psync --replay_redirect="$TMP/f" --write_lat_log="$TMP/flat" --log_offset=1 "$@"
	[ "$(counts "$TMP/$n.json")" = "$(counts "$TMP/$n.fio.json")" ] ||
		fail "$n: rqlock $(counts "$TMP/$n.json"), fio $(counts "$TMP/$n.fio.json")"
	diff -u <(lat "$TMP/flat_clat.1.log") <(lat "$TMP/lat_clat.1.log") >&2 ||
		fail "$n: rqlock's I/Os (+) differ from fio's (-)"
	echo "ok: $n as fio 3.33: $(counts "$TMP/$n.json")"
}
cmp_fio plain --read_iolog="$TMP/rw.bin"
[ "$(counts "$TMP/plain.json")" = "$(want "$TMP/rw.e.json")" ] || fail "plain: not the generated I/Os"
cmp_fio skip --read_iolog="$TMP/rw.bin" --replay_skip=read,sync
[ "$(counts "$TMP/skip.json" | cut -d' ' -f1,2,7)" = "0 0 0" ] || fail "replay_skip=read,sync replayed some"
cmp_fio scale --read_iolog="$TMP/rw.bin" --replay_scale=3 --replay_align=4096
# replay_align rounds a blktrace's lengths up too (fio's t_bytes_align): no length below 4 KiB
[ "$(lat "$TMP/lat_clat.1.log" | awk '$2 % 4096 || $3 % 4096' | wc -l)" = 0 ] ||
	fail "replay_align=4096 left an offset or a length unaligned"
cmp_fio redirect_time --read_iolog="$TMP/rw2.bin" --replay_time_scale=400

# numjobs over two traces: clone k replays trace k mod 2 (and takes the trace's depth)
rq numjobs --read_iolog="$TMP/rw.bin:$TMP/rw2.bin" --numjobs=2 --replay_redirect="$TMP/f" --ioengine=null
[ "$(counts "$TMP/numjobs.json" 0)" = "$(want "$TMP/rw.e.json")" ] || fail "numjobs: clone 0 is not trace 1"
[ "$(counts "$TMP/numjobs.json" 1)" = "$(want "$TMP/rw2.e.json")" ] || fail "numjobs: clone 1 is not trace 2"
if [ -n "$FIO" ]; then
	fio_run numjobs --read_iolog="$TMP/rw.bin:$TMP/rw2.bin" --numjobs=2 --replay_redirect="$TMP/f" --ioengine=null
	for k in 0 1; do
		[ "$(counts "$TMP/numjobs.json" $k)" = "$(counts "$TMP/numjobs.fio.json" $k)" ] ||
			fail "numjobs: clone $k: rqlock $(counts "$TMP/numjobs.json" $k), fio $(counts "$TMP/numjobs.fio.json" $k)"
	done
fi

# a read of 0 bytes: not replayed, one warning (fio warns once too)
python3 "$GEN" "$TMP/zero.bin" --kind empty-io --ops read,write --count 20 --expect "$TMP/zero.e.json" || fail "generator"
"$RQLOCK" run --name=r --read_iolog="$TMP/zero.bin" --replay_redirect="$TMP/f" --ioengine=null \
	--output-format=json >"$TMP/zero.json" 2>"$TMP/zero.err" || fail "0-byte read: exit"
[ "$(wc -l <"$TMP/zero.err")" = 1 ] && grep -q "record .*: warning: a read of 0 bytes" "$TMP/zero.err" ||
	fail "0-byte read: $(cat "$TMP/zero.err")"
[ "$(counts "$TMP/zero.json")" = "$(want "$TMP/zero.e.json")" ] || fail "0-byte read: replayed $(counts "$TMP/zero.json")"

# ---- time: never before the trace's step, scaled by replay_time_scale ----
python3 "$GEN" "$TMP/slow.bin" --ops read,write --count 4 --gap 120000000 --seed 2 --expect "$TMP/slow.e.json" ||
	fail "generator"
for scale in 100 300; do
	rm -f "$TMP/w.log"
	rq "slow$scale" --read_iolog="$TMP/slow.bin" --replay_redirect="$TMP/f" --write_iolog="$TMP/w.log" \
		--replay_time_scale=$scale
	# due: the sum of the steps since the first event, each scaled, in whole microseconds
	python3 -c 'import json, sys
ts = [io[5] for io in json.load(open(sys.argv[1]))["ios"]]
due, at = [0], 0
for a, b in zip(ts, ts[1:]):
    at += int((b - a) * (100.0 / int(sys.argv[2]))) // 1000
    due.append(at)
print(*due)' "$TMP/slow.e.json" $scale >"$TMP/due"
	read -ra due <"$TMP/due"
	mapfile -t got < <(awk 'NF == 5 { print $1 }' "$TMP/w.log")
	[ ${#got[@]} = 4 ] || fail "time: ${#got[@]} I/Os"
	for i in 0 1 2 3; do
		[ "${got[$i]}" -ge "${due[$i]}" ] || fail "time scale $scale: I/O $i at ${got[$i]} us, due ${due[$i]}"
	done
done

# ---- depth: a job without iodepth takes the trace's (fio's probe), one with iodepth keeps it ----
python3 "$GEN" "$TMP/burst.bin" --count 24 --burst 4 --ops read --expect "$TMP/burst.e.json" ||
	fail "generator"
d=$(json "$TMP/burst.e.json" "j['depth']")
[ "$d" = 4 ] || fail "the generator's burst trace has depth $d"
# completions 20 ms late: the depth the replay keeps shows in iodepth_level
rq depth --read_iolog="$TMP/burst.bin" --replay_redirect=@null,delay_us=20000 --replay_no_stall=1
[ "$(json "$TMP/depth.json" "j['jobs'][0]['iodepth_level']['4'] > 0 and j['jobs'][0]['iodepth_level']['8'] == 0")" = True ] ||
	fail "depth: iodepth_level $(json "$TMP/depth.json" "j['jobs'][0]['iodepth_level']") (the trace's is 4)"
rq depth1 --read_iolog="$TMP/burst.bin" --replay_redirect=@null,delay_us=20000 --replay_no_stall=1 --iodepth=1
[ "$(json "$TMP/depth1.json" "j['jobs'][0]['iodepth_level']['2']")" = 0.0 ] ||
	fail "iodepth=1: iodepth_level $(json "$TMP/depth1.json" "j['jobs'][0]['iodepth_level']")"

# ---- bad traces: one line naming the trace and the record, exit 2, nothing written ----
bad() {	# NAME WANT ARGS...
	local n=$1 w=$2 rc=0
	shift 2
	rm -f "$TMP/w.log" "$TMP/rf"
	"$RQLOCK" run --name=r --write_iolog="$TMP/w.log" "$@" >/dev/null 2>"$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "$n: exit $rc, expected 2 ($(head -1 "$TMP/err"))"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$n: not one line: $(cat "$TMP/err")"
	grep -q -- "$w" "$TMP/err" || fail "$n: $(cat "$TMP/err")"
	[ ! -e "$TMP/w.log" ] && [ ! -e "$TMP/rf" ] || fail "$n: wrote a file"
	echo "ok: $n: $(cat "$TMP/err")"
}
for k in bad-magic bad-version truncated pdu-past-end; do
	python3 "$GEN" "$TMP/$k.bin" --kind $k --count 10 || fail "generator"
done
bad magic "read_iolog=$TMP/bad-magic.bin, record 3 (byte [0-9]*): magic 0x12345607" \
	--read_iolog="$TMP/bad-magic.bin" --replay_redirect="$TMP/rf"
bad version "read_iolog=$TMP/bad-version.bin, record 3 .*: blktrace version 6" \
	--read_iolog="$TMP/bad-version.bin" --replay_redirect="$TMP/rf"
bad truncated "read_iolog=$TMP/truncated.bin, record [0-9]* .*: truncated: 28 of a record's 48 bytes" \
	--read_iolog="$TMP/truncated.bin" --replay_redirect="$TMP/rf"
bad pdu "read_iolog=$TMP/pdu-past-end.bin, record [0-9]* .*: its pdu of 40 bytes runs past the end" \
	--read_iolog="$TMP/pdu-past-end.bin" --replay_redirect="$TMP/rf"
python3 "$GEN" "$TMP/nodev.bin" --devices 4095:1048575 --count 10 || fail "generator"
bad device "read_iolog=$TMP/nodev.bin, record [0-9]* .*: device 4095:1048575: no block device under /dev" \
	--read_iolog="$TMP/nodev.bin"
python3 "$GEN" "$TMP/none.bin" --count 0 || fail "generator"
bad "no I/O" "read_iolog=$TMP/none.bin: no I/O to replay" --read_iolog="$TMP/none.bin" --replay_redirect="$TMP/rf"
bad "all skipped" "that replay_skip keeps" --read_iolog="$TMP/rw.bin" --replay_redirect="$TMP/rf" \
	--replay_skip=read,write,trim,sync
# the 2.4 floppy model has no discard and no flush (docs/ARCHITECTURE.md)
bad "no discard" "read_iolog's log trims, and device @floppy" --read_iolog="$TMP/little.bin" --replay_redirect=@floppy \
	--replay_skip=sync
bad "no flush" "read_iolog's log flushes, and device @floppy" --read_iolog="$TMP/rw.bin" --replay_redirect=@floppy
echo "PASS"
