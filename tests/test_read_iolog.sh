#!/usr/bin/env bash
# issue 26: read_iolog was refused.  rqlock replays fio's iolog v2 and v3
# (sync, datasync and trim lines too, issue 34):
# a hand-written log issues exactly its I/Os (its write_iolog shows them),
# under every lock mode; replay_scale/align/redirect/skip change them as
# documented; bad logs are one line naming the log and line, exit 2,
# nothing written; logs round-trip rqlock -> fio -> rqlock when fio is here.
. "$(dirname "$0")/lib.sh"

# the I/O lines of an iolog v3 as "FILE ACTION OFFSET LENGTH"
ios() { awk 'NF == 5 { print $2, $3, $4, $5 }' "$1"; }

F=$TMP/a
cat >"$TMP/v2.log" <<LOG
fio version 2 iolog
$F add
$F open
$F write 8192 4096
$F wait 1 0
$F read 0 512
$F write 1048576 8192
$F read 8192 4096
$F close
LOG
printf '%s\n' "$F write 8192 4096" "$F read 0 512" "$F write 1048576 8192" "$F read 8192 4096" >"$TMP/want"

modes=$(rq_modes)
[ -n "$modes" ] || fail "no lock modes from rqlock --list"
for m in $modes; do
	rm -f "$TMP/out.log"
	"$RQLOCK" run --lock="$m" --name=r --read_iolog="$TMP/v2.log" --write_iolog="$TMP/out.log" \
		--output-format=json >"$TMP/o.json" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "$m: exit"; }
	[ ! -s "$TMP/err" ] || fail "$m: stderr: $(head -1 "$TMP/err")"
	ios "$TMP/out.log" | diff -u "$TMP/want" - >&2 || fail "$m: v2 replay issued other I/Os"
	[ "$(json "$TMP/o.json" "j['jobs'][0]['write']['io_bytes']")" = 12288 ] || fail "$m: write bytes"
	[ "$(json "$TMP/o.json" "j['jobs'][0]['read']['io_bytes']")" = 4608 ] || fail "$m: read bytes"
done

# v3, times honoured: the last I/O is due 300 ms in (replay_no_stall: at once)
cat >"$TMP/v3.log" <<LOG
fio version 3 iolog
0 $F add
10 $F open
20 $F read 4096 4096
300020 $F read 0 4096
300030 $F close
LOG
rm -f "$TMP/out.log"
"$RQLOCK" run --name=r --read_iolog="$TMP/v3.log" --write_iolog="$TMP/out.log" >/dev/null 2>"$TMP/err" ||
	{ cat "$TMP/err" >&2; fail "v3: exit"; }
printf '%s\n' "$F read 4096 4096" "$F read 0 4096" | diff -u - <(ios "$TMP/out.log") >&2 || fail "v3 replay issued other I/Os"
t=$(awk 'NF == 5 && $4 == 0 { print $1 }' "$TMP/out.log")
[ "$t" -ge 290000 ] || fail "v3: the second read was issued at $t us, before its time (300 ms)"
rm -f "$TMP/out.log"
"$RQLOCK" run --name=r --read_iolog="$TMP/v3.log" --replay_no_stall=1 --write_iolog="$TMP/out.log" >/dev/null ||
	fail "no_stall: exit"
ios "$TMP/out.log" | grep -q "read 0 4096" || fail "no_stall: I/O missing"

# scale, align, redirect, skip
rm -f "$TMP/out.log"
"$RQLOCK" run --name=r --read_iolog="$TMP/v2.log" --replay_scale=2 --replay_align=4096 \
	--replay_redirect="$TMP/b" --replay_skip=read --write_iolog="$TMP/out.log" >/dev/null 2>"$TMP/err" ||
	{ cat "$TMP/err" >&2; fail "options: exit"; }
printf '%s\n' "$TMP/b write 4096 4096" "$TMP/b write 524288 8192" | diff -u - <(ios "$TMP/out.log") >&2 ||
	fail "scale/align/redirect/skip gave other I/Os"

# numjobs with a ':' list: clone k replays log k mod n
rm -f "$TMP/out.log" "$TMP/out.log.1"
"$RQLOCK" run --name=r --numjobs=2 --read_iolog="$TMP/v2.log:$TMP/v3.log" --replay_no_stall=1 \
	--write_iolog="$TMP/out.log" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "numjobs: exit"; }
ios "$TMP/out.log" | diff -u "$TMP/want" - >&2 || fail "clone 0 did not replay log 0"
[ "$(ios "$TMP/out.log.1" | wc -l)" = 2 ] || fail "clone 1 did not replay log 1"

# sync, datasync and trim lines (issue 34): an fsync and an fdatasync of the file (sync's
# total_ios counts the fsync, its lat_ns both, as fio 3.33) and a trim, which fio 3.33 drops
# ("bad ddir: 2") and fio 3.34 replays (its dd6500e9), as rqlock does
truncate -s 64k "$TMP/s"
printf '%s\n' 'fio version 2 iolog' "$TMP/s add" "$TMP/s open" "$TMP/s write 0 4096" "$TMP/s sync 0 0" \
	"$TMP/s datasync 0 0" "$TMP/s trim 8192 4096" "$TMP/s read 0 4096" "$TMP/s close" >"$TMP/s.log"
sums() {	# JSON: "READ_BYTES WRITE_BYTES TRIM_BYTES SYNC_IOS SYNC_LATENCIES"
	python3 -c 'import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"][0]
print(j["read"]["io_bytes"], j["write"]["io_bytes"], j["trim"]["io_bytes"], j["sync"]["total_ios"], j["sync"]["lat_ns"]["N"])' "$1"
}
for m in $modes; do
	"$RQLOCK" run --lock="$m" --name=r --read_iolog="$TMP/s.log" --output-format=json >"$TMP/s.json" 2>"$TMP/err" ||
		{ cat "$TMP/err" >&2; fail "$m: sync/trim log: exit"; }
	[ "$(sums "$TMP/s.json")" = "4096 4096 4096 1 2" ] || fail "$m: sync/trim log: $(sums "$TMP/s.json")"
done
if command -v fio >/dev/null && [ "$(fio --version)" = fio-3.33 ]; then
	fio --name=r --read_iolog="$TMP/s.log" --output-format=json --output="$TMP/fs.json" 2>"$TMP/err" ||
		fail "fio: sync/trim log: exit"
	[ "$(sums "$TMP/fs.json")" = "4096 4096 0 1 2" ] && grep -q "bad ddir: 2" "$TMP/err" ||
		fail "fio 3.33 replayed the sync/trim log otherwise: $(sums "$TMP/fs.json"), $(head -1 "$TMP/err")"
fi

# bad logs: one line naming the log and its line, exit 2, nothing written
bad() {	# NAME WANT: the log in $TMP/bad.log
	local rc=0
	rm -f "$TMP/w.log"
	"$RQLOCK" run --name=r --read_iolog="$TMP/bad.log" --write_iolog="$TMP/w.log" >/dev/null 2>"$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "$1: exit $rc, expected 2"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$1: not one line: $(cat "$TMP/err")"
	grep -q "read_iolog=$TMP/bad.log$2" "$TMP/err" || fail "$1: $(cat "$TMP/err")"
	[ ! -e "$TMP/w.log" ] || fail "$1: wrote its write_iolog"
}
printf 'fio version 4 iolog\n' >"$TMP/bad.log"; bad version ", line 1: .*not a fio iolog header"
printf 'fio version 3 iolog\n0 %s add\n1 %s read x 4096\n' "$F" "$F" >"$TMP/bad.log"; bad "bad number" ", line 3"
printf 'fio version 3 iolog\n0 %s add\n1 %s frob 0 4096\n' "$F" "$F" >"$TMP/bad.log"; bad action ", line 3: unknown action"
printf 'fio version 2 iolog\n%s add\n%s read 0 4096 9\n' "$F" "$F" >"$TMP/bad.log"; bad fields ", line 3: 5 fields"
printf 'fio version 3 iolog\n0 %s add\n1 %s/z read 0 4096\n' "$F" "$F" >"$TMP/bad.log"; bad "not in log" ", line 3: .*no earlier line adds"
printf 'fio version 3 iolog\n0 %s add\n1 %s wait 0 4096\n' "$F" "$F" >"$TMP/bad.log"; bad "v3 wait" ", line 3: 'wait'"
printf 'fio version 3 iolog\n0 %s add\n1 %s trim 4096 0\n' "$F" "$F" >"$TMP/bad.log"; bad "trim of 0" ", line 3: length 0"
# a blktrace's magic: read as one (tests/test_blktrace.sh), here cut short in its first record
printf '\x07\x74\x61\x65rest' >"$TMP/bad.log"; bad blktrace ", record 1 (byte 0): truncated: 8 of a record's 48"

# round trip (fio replays with read_iolog but writes no log then): rqlock's log replays in
# fio with its bytes; fio's log replays in rqlock with its I/Os
if command -v fio >/dev/null; then
	rm -f "$TMP/a"
	"$RQLOCK" run --name=w --filename="$TMP/a" --rw=randrw --bs=4k --size=256k --write_iolog="$TMP/rq.log" \
		--output-format=json >"$TMP/w.json" || fail "rqlock write_iolog"
	[ "$(ios "$TMP/rq.log" | wc -l)" = 64 ] || fail "rqlock's log has $(ios "$TMP/rq.log" | wc -l) I/Os"
	fio --name=r --read_iolog="$TMP/rq.log" --replay_no_stall=1 --ioengine=psync --output-format=json \
		--output="$TMP/r.json" 2>"$TMP/err" || fail "fio cannot replay rqlock's log: $(head -1 "$TMP/err")"
	for d in read write; do
		[ "$(json "$TMP/r.json" "j['jobs'][0]['$d']['io_bytes']")" = \
		  "$(json "$TMP/w.json" "j['jobs'][0]['$d']['io_bytes']")" ] || fail "fio replayed other $d bytes"
	done
	fio --name=f --filename="$TMP/a" --rw=randrw --bs=4k --size=256k --ioengine=psync \
		--write_iolog="$TMP/fio.log" --output=/dev/null || fail "fio write_iolog"
	"$RQLOCK" run --name=r --read_iolog="$TMP/fio.log" --write_iolog="$TMP/back.log" \
		>/dev/null 2>"$TMP/err" || fail "rqlock cannot replay fio's log: $(head -1 "$TMP/err")"
	diff <(ios "$TMP/fio.log") <(ios "$TMP/back.log") >&2 || fail "rqlock replayed fio's log with other I/Os"
else
	echo "fio not installed: round trip skipped"
fi
echo "PASS"
