#!/usr/bin/env bash
# fdatasync=N, sync_file_range=FLAGS:N, end_fsync and fsync_on_close (issue
# 34): each a flush through the block layer (RQ_OP_FLUSH, bio->sync says
# which), served by the device with the syscall fio would make, and
# accounted as fio 3.33 does:
# - 1024 sequential writes at fdatasync=8 or sync_file_range=...:8: 127
#   latencies in JSON sync.lat_ns, and sync.total_ios 0 (fio 3.33 counts
#   only fsyncs there), in every lock mode, on io_uring, libaio and RAM;
#   fsync=8 with fdatasync=4: 127 fsyncs among 255 syncs, as fio 3.33;
# - libaio under strace: the syscalls are fdatasync() and
#   sync_file_range() with the flags asked, of the 8 blocks written since
#   the last (32768 bytes at 32768 for the second);
# - end_fsync=1 and fsync_on_close=1: one more fsync() per file after the
#   writes, inside the runtime, none in the sync statistics (fio 3.33's);
# - bad sync_file_range values and a device without flush: exit 2, one line.
. "$(dirname "$0")/lib.sh"
need python3
f="$TMP/data"
sync_of() {	# sync_of JSONFILE: "total_ios N writes"
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
job = json.loads(t[t.index('{'):])['jobs'][0]
s = job['sync']
assert s['lat_ns']['N'] == 0 or 'percentile' in s['lat_ns'], s
print(s['total_ios'], s['lat_ns']['N'], job['write']['total_ios'])
PY
}
run() {	# run NAME ARGS...: a 4 MiB sequential write, JSON to $TMP/o.json
	local name=$1
	shift
	[ "${name#@}" = "$name" ] && rm -f "$name"
	"$RQLOCK" run --name=t --filename="$name" --size=4m --rw=write --output-format=json \
		--output "$TMP/o.json" "$@" || fail "$name $*: exit $?"
}
for mode in $(rq_modes); do
	for dev in io_uring:"$f" libaio:"$f" io_uring:@ram0,size=4m; do
		eng=${dev%%:*} name=${dev#*:}
		for kind in --fdatasync=8 --sync_file_range=write:8 --sync_file_range=wait_before,write,wait_after:8; do
			run "$name" --lock="$mode" --ioengine="$eng" --iodepth=8 "$kind"
			got=$(sync_of "$TMP/o.json") || fail "$mode $dev $kind: no sync block"
			[ "$got" = "0 127 1024" ] || fail "$mode $dev $kind: total_ios, N, writes = $got (fio 3.33: 0 127 1024)"
		done
	done
	echo "$mode: 127 fdatasync and sync_file_range latencies for 1024 writes on io_uring, libaio and RAM"
done
run "$f" --fsync=8 --fdatasync=4
[ "$(sync_of "$TMP/o.json")" = "127 255 1024" ] || fail "fsync=8 fdatasync=4: $(sync_of "$TMP/o.json") (fio 3.33: 127 255)"
for o in --end_fsync=1 --fsync_on_close=1; do
	run "$f" "$o"
	[ "$(sync_of "$TMP/o.json")" = "0 0 1024" ] || fail "$o: $(sync_of "$TMP/o.json") (fio 3.33: no sync statistics)"
done
echo "fsync=8 with fdatasync=4: 127 of 255; end_fsync and fsync_on_close: no statistics, as fio 3.33"
if command -v fio >/dev/null && fio --version | grep -q '^fio-3\.33'; then
	for o in "--fdatasync=8" "--sync_file_range=write:8" "--fsync=8 --fdatasync=4" "--end_fsync=1"; do
		rm -f "$f"
		# shellcheck disable=SC2086 # $o is one or two options
		fio --name=t --filename="$f" --size=4m --rw=write --ioengine=io_uring $o --output-format=json \
			--output="$TMP/fio.json" >/dev/null 2>&1 || fail "fio $o"
		# shellcheck disable=SC2086
		run "$f" $o
		a=$(sync_of "$TMP/fio.json") b=$(sync_of "$TMP/o.json")
		[ "$a" = "$b" ] || fail "$o: fio 3.33 $a, rqlock $b (total_ios, N, writes)"
	done
	echo "fio 3.33 counts the same for fdatasync, sync_file_range, both kinds and end_fsync"
fi
# the syscalls themselves: libaio serves a flush synchronously, in the worker
if command -v strace >/dev/null && strace -f -qq -o /dev/null true 2>/dev/null; then
	syscalls() {	# syscalls ARGS...: "fsyncs fdatasyncs sync_file_ranges" of a run
		rm -f "$f"
		# LeakSanitizer cannot run under ptrace: the ASan build's leaks are checked by the other runs
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=fsync,fdatasync,sync_file_range -o "$TMP/st.txt" \
			"$RQLOCK" run --name=t --filename="$f" --size=4m --rw=write --ioengine=libaio \
			--output /dev/null "$@" || fail "strace $*: exit $?"
		echo "$(grep -c ' fsync(' "$TMP/st.txt") $(grep -c ' fdatasync(' "$TMP/st.txt")" \
			"$(grep -c ' sync_file_range(' "$TMP/st.txt")"
	}
	base=$(syscalls)	# laying the file out fsyncs it once
	read -r b0 _ <<<"$base"
	[ "$(syscalls --fdatasync=8)" = "$b0 127 0" ] || fail "fdatasync=8: syscalls $(syscalls --fdatasync=8)"
	got=$(syscalls --sync_file_range=wait_before,write:8)
	[ "$got" = "$b0 0 127" ] || fail "sync_file_range: syscalls $got"
	grep ' sync_file_range(' "$TMP/st.txt" | sed -n 2p |
		grep -q 'sync_file_range([0-9]*, 32768, 32768, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE) = 0' ||
		{ cat "$TMP/st.txt"; fail "the second sync_file_range is not of the 8 blocks written since the first"; }
	for o in --end_fsync=1 --fsync_on_close=1; do
		[ "$(syscalls "$o")" = "$((b0 + 1)) 0 0" ] || fail "$o: syscalls $(syscalls "$o"), without $base"
	done
	echo "libaio: 127 fdatasync(), 127 sync_file_range() of the range written, one fsync() at the end"
else
	echo "no strace here (or not allowed): the syscalls are not checked"
fi
# bad values, a device without flush: exit 2, one line, nothing run
bad() {	# bad PATTERN ARGS...
	local pat=$1
	shift
	"$RQLOCK" run --name=t --size=64k --rw=write "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$TMP/bad.err")" = 1 ] && grep -q "$pat" "$TMP/bad.err" && [ ! -s "$TMP/bad.out" ] \
		|| { cat "$TMP/bad.err"; fail "$*: exit $rc"; }
}
bad "bad value 'bogus' for option 'sync_file_range'" --ioengine=null --sync_file_range=bogus:8
bad "'write:x' for option 'sync_file_range'" --ioengine=null --sync_file_range=write:x
bad "':8' for option 'sync_file_range'" --ioengine=null --sync_file_range=:8
for o in fdatasync=8 sync_file_range=...:8 end_fsync=1 fsync_on_close=1; do
	arg=${o/.../write}
	bad "$o flushes, and device @floppy0 (floppy) has no flush" --filename=@floppy0 --"$arg"
done
# a job that does not write syncs nothing (fio's should_fsync()): the floppy serves it
"$RQLOCK" run --name=t --filename=@floppy0 --size=64k --rw=read --end_fsync=1 --output /dev/null ||
	fail "a read job with end_fsync on the floppy: exit $?"
echo PASS
