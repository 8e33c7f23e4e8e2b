#!/usr/bin/env bash
# issue 26: write_iolog was refused.  rqlock writes fio's iolog version 3:
# the header, add/open per file, one line per I/O issued, close; fio 3.33
# replays it (read_iolog) and moves the same bytes.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/w.fio" <<JOB
[w]
rw=randwrite
ioengine=psync
size=64k
bs=4k
filename=$TMP/f
write_iolog=$TMP/log
JOB
"$RQLOCK" run "$TMP/w.fio" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "exit"; }
[ "$(head -1 "$TMP/log")" = "fio version 3 iolog" ] || fail "header: $(head -1 "$TMP/log")"
grep -q "^[0-9]* $TMP/f add$" "$TMP/log" || fail "no add line"
grep -q "^[0-9]* $TMP/f open$" "$TMP/log" || fail "no open line"
grep -q "^[0-9]* $TMP/f close$" "$TMP/log" || fail "no close line"
n=$(grep -c "^[0-9]* $TMP/f write [0-9]* 4096$" "$TMP/log")
[ "$n" = 16 ] || fail "$n write lines, expected 16"
[ "$(awk '$3 == "write" { print $4 }' "$TMP/log" | sort -u | wc -l)" = 16 ] || fail "offsets repeat"
if command -v fio >/dev/null; then
	fio --name=r --read_iolog="$TMP/log" --ioengine=psync --output-format=json >"$TMP/r.json" 2>"$TMP/r.err" ||
		fail "fio cannot replay it: $(head -2 "$TMP/r.err")"
	[ "$(json "$TMP/r.json" "j['jobs'][0]['write']['io_bytes']")" = 65536 ] || fail "fio replayed other bytes"
fi
echo "PASS"
