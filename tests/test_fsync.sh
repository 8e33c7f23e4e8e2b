#!/usr/bin/env bash
# fsync=N (fio's DDIR_SYNC): after every N writes a flush goes through the
# block layer (RQ_OP_FLUSH, never merged) to the device - io_uring's
# IORING_OP_FSYNC, libaio's fsync() once its writes are back, RAM and null
# at once - and its latency is fio's "sync": JSON sync.total_ios and
# lat_ns (N equal, percentiles, json+ bins), the normal output's
# "fsync/fdatasync/sync_file_range" block and the 4th "issued rwts" count.
# - 1024 sequential writes at fsync=8 issue 127 flushes, as fio 3.33 (the
#   one due after the last write is not issued: the job is done), in every
#   lock mode, on io_uring, libaio and RAM;
# - a timed null job: one flush per 32 writes;
# - through rqlock's server the fio client shows them too;
# - a device without flush (the 2.4 floppy model) is refused, exit 2.
. "$(dirname "$0")/lib.sh"
need python3
f="$TMP/data"
sync_of() {	# sync_of JSONFILE: "syncs N writes"
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
job = json.loads(t[t.index('{'):])['jobs'][0]
s = job['sync']
assert s['total_ios'] == s['lat_ns']['N'], s
assert s['total_ios'] == 0 or 'percentile' in s['lat_ns'], s
print(s['total_ios'], job['write']['total_ios'], 'bins' in s['lat_ns'])
PY
}
for mode in $(rq_modes); do
	for dev in io_uring:"$f" libaio:"$f" io_uring:@ram0,size=4m; do
		eng=${dev%%:*} name=${dev#*:}
		rm -f "$f"
		"$RQLOCK" run --lock="$mode" --name=t --filename="$name" --ioengine="$eng" --size=4m --rw=write \
			--iodepth=8 --fsync=8 --output-format=json+ --output "$TMP/o.json" || fail "$mode $dev: exit $?"
		got=$(sync_of "$TMP/o.json") || fail "$mode $dev: sync's N is not its total_ios"
		[ "$got" = "127 1024 True" ] || fail "$mode $dev: syncs, writes, bins = $got (fio 3.33: 127 1024)"
	done
	echo "$mode: 127 flushes for 1024 writes at fsync=8 on io_uring, libaio and RAM"
done
"$RQLOCK" run --name=t --ioengine=null --rw=randwrite --size=16m --time_based --runtime=1 --fsync=32 \
	--output-format=json --output "$TMP/n.json" || fail "null: exit $?"
read -r s w _ <<<"$(sync_of "$TMP/n.json")"
[ "$s" -ge $((w / 32 - 1)) ] && [ "$s" -le $((w / 32)) ] || fail "null: $s flushes for $w writes at fsync=32"
echo "null: $s flushes for $w writes at fsync=32"
rm -f "$f"
"$RQLOCK" run --name=t --filename="$f" --size=4m --rw=write --fsync=8 >"$TMP/n.out" || fail "normal output: exit $?"
grep -q '^  fsync/fdatasync/sync_file_range:$' "$TMP/n.out" && grep -q '^    sync (.sec): min=' "$TMP/n.out" \
	&& grep -q '^    sync percentiles' "$TMP/n.out" && grep -q 'issued rwts: total=0,1024,0,127 ' "$TMP/n.out" \
	|| { cat "$TMP/n.out"; fail "the normal output has no sync block or count"; }
if command -v fio >/dev/null && fio --version | grep -q '^fio-3\.33'; then
	rm -f "$f"
	fio --name=t --filename="$f" --size=4m --rw=write --ioengine=io_uring --fsync=8 >"$TMP/fio.out" 2>&1 || fail "fio"
	grep -q 'issued rwts: total=0,1024,0,127 ' "$TMP/fio.out" || { cat "$TMP/fio.out"; fail "fio 3.33 counts otherwise"; }
	echo "fio 3.33 issues the same 127"
	# and fio's client shows rqlock server's flushes as a fio server's
	"$RQLOCK" server "sock:$TMP/s.sock" --workers 2 --no-pin --allow "$TMP/" 2>"$TMP/s.log" &
	spid=$!
	cleanup_hooks+=("kill $spid 2>/dev/null; wait $spid 2>/dev/null")
	for _ in $(seq 100); do grep -q 'listening on' "$TMP/s.log" && break; sleep 0.1; done
	printf '[t]\nioengine=io_uring\nfilename=%s\nsize=4m\nrw=write\nfsync=8\n' "$f" >"$TMP/c.fio"
	fio --client="sock:$TMP/s.sock" "$TMP/c.fio" >"$TMP/cl.out" 2>&1 || { cat "$TMP/cl.out" "$TMP/s.log"; fail "fio --client"; }
	grep -q 'issued rwts: total=0,1024,0,127 ' "$TMP/cl.out" && grep -q '^    sync (.sec): min=' "$TMP/cl.out" \
		|| { cat "$TMP/cl.out"; fail "the fio client got no flushes from rqlock's server"; }
	echo "a fio client of rqlock's server shows the 127 flushes"
fi
# no flush on the 2.4 floppy model: refused before anything runs
"$RQLOCK" run --name=t --filename=@floppy0 --size=64k --rw=write --fsync=8 >/dev/null 2>"$TMP/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$TMP/bad.err")" = 1 ] && grep -q 'fsync=8 flushes, and device @floppy0 (floppy) has no flush' "$TMP/bad.err" \
	|| { cat "$TMP/bad.err"; fail "fsync on the floppy model: exit $rc"; }
echo PASS
