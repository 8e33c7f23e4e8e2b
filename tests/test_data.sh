#!/usr/bin/env bash
# Data integrity on a file device, both lock modes: a write pass stamps
# every 512 B sector with its offset; an independent reader checks the
# stamps on disk; a read pass through rqlock checks them again; a sector
# moved on purpose must then fail the read pass (exit 1).
. "$(dirname "$0")/lib.sh"
need python3

f=$TMP/data.img
for mode in global per-queue; do
	rm -f "$f"
	cat >"$TMP/w.fio" <<JOB
[w]
filename=$f
rw=write
bs=8k
size=4m
iodepth=8
direct=1
JOB
	sed -e 's/^\[w\]/[r]/' -e 's/rw=write/rw=randread/' -e 's/bs=8k/bs=4k/' "$TMP/w.fio" >"$TMP/r.fio"
	"$RQLOCK" run --lock=$mode --workers 2 --output-format=json --output "$TMP/w.json" "$TMP/w.fio" \
		|| fail "$mode: write pass failed"
	python3 - "$f" <<'PY' || fail "$mode: stamps on disk are wrong"
import struct, sys
data = open(sys.argv[1], 'rb').read()
assert len(data) == 4 << 20, len(data)
for off in range(0, len(data), 512):
    magic, where = struct.unpack_from('<QQ', data, off)
    assert magic == 0x72716c6f636b5354 and where == off, (off, hex(magic), where)
PY
	"$RQLOCK" run --lock=$mode --workers 2 --output-format=json --output "$TMP/r.json" "$TMP/r.fio" \
		|| fail "$mode: read pass failed"
	v=$(json "$TMP/r.json" 'j["rqlock"]["sectors_verified"]')
	[ "$v" = 8192 ] || fail "$mode: read pass verified $v sectors, expected 8192"
	# move one sector: copy sector 100's content over sector 7
	python3 - "$f" <<'PY'
import sys
with open(sys.argv[1], 'r+b') as fh:
    fh.seek(100 * 512); s = fh.read(512)
    fh.seek(7 * 512); fh.write(s)
PY
	if "$RQLOCK" run --lock=$mode --output-format=json --output "$TMP/bad.json" "$TMP/r.fio" 2>"$TMP/err"; then
		fail "$mode: a misplaced sector was not detected"
	fi
	grep -q "offset 3584" "$TMP/err" || fail "$mode: mismatch report does not name offset 3584: $(cat "$TMP/err")"
done
echo "test_data: ok"
