#!/usr/bin/env bash
# issue 34: a blktrace replayed on the devices it names (no replay_redirect),
# as fio 3.33 finds them: the block device node under /dev with the trace's
# major:minor.  Two loop devices made for the test over temporary files
# stand for the traced disks (root only; nothing else is written):
#  - a trace that writes only the first device leaves the second's file
#    all zeros and the first's holding data at exactly the written ranges;
#  - a trace of reads, writes, trims and flushes over both replays under
#    every lock mode with fio 3.33's bytes and counts and fio's (direction,
#    length, offset) sequence - fio trims block devices, so trims are in.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/blktrace_lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to attach loop devices"
need losetup
attach() {	# IMAGE: the loop device's path
	truncate -s 16M "$1"
	losetup --find --show "$1" 2>/dev/null
}
d1=$(attach "$TMP/one.img") || skip "losetup cannot attach a loop device here"
cleanup_hooks+=("losetup -d $d1")
d2=$(attach "$TMP/two.img") || skip "losetup cannot attach a second loop device here"
cleanup_hooks+=("losetup -d $d2")
num() { echo "$((16#$(stat -c %t "$1"))):$((16#$(stat -c %T "$1")))"; }
n1=$(num "$d1")
n2=$(num "$d2")
echo "devices: $d1 ($n1), $d2 ($n2)"

# ---- writes to the first device only: the data lands there, at the trace's ranges ----
python3 "$GEN" "$TMP/w.bin" --ops write --devices "$n1" --count 40 --span $((8 << 20)) --expect "$TMP/w.e.json" ||
	fail "generator"
"$RQLOCK" run --name=r --read_iolog="$TMP/w.bin" --direct=1 --output-format=json >"$TMP/w.json" 2>"$TMP/err" ||
	{ cat "$TMP/err" >&2; fail "writes: exit"; }
[ "$(counts "$TMP/w.json")" = "$(want "$TMP/w.e.json")" ] || fail "writes: $(counts "$TMP/w.json")"
cmp -s "$TMP/two.img" /dev/zero -n $((16 << 20)) || fail "the second device was written: the trace names only $n1"
python3 -c 'import json, sys
data = open(sys.argv[2], "rb").read()
cover = bytearray(len(data))
for op, _ma, _mi, off, n, _t in json.load(open(sys.argv[1]))["ios"]:
    cover[off:off + n] = b"\1" * n
# each written 512-byte sector holds the stamp, every other one is zero
bad = [s for s in range(0, len(data), 512) if (data[s:s + 512] != bytes(512)) != bool(cover[s])]
sys.exit("sectors %s: written where the trace did not, or not where it did" % bad[:4] if bad else 0)' \
	"$TMP/w.e.json" "$TMP/one.img" || fail "the first device's data is not at the trace's ranges"
echo "ok: writes to $n1 landed on $d1 alone, at the trace's ranges"

# ---- both devices, every kind, every lock mode, as fio 3.33 ----
python3 "$GEN" "$TMP/t.bin" --devices "$n1,$n2" --seed 5 --expect "$TMP/t.e.json" || fail "generator"
w=$(want "$TMP/t.e.json")
for m in $(rq_modes); do
	rm -f "$TMP"/lat_*
	"$RQLOCK" run --lock="$m" --name=r --read_iolog="$TMP/t.bin" --ioengine=psync --write_lat_log="$TMP/lat" \
		--log_offset=1 --output-format=json >"$TMP/$m.json" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "$m: exit"; }
	[ ! -s "$TMP/err" ] || fail "$m: stderr: $(head -1 "$TMP/err")"
	[ "$(counts "$TMP/$m.json")" = "$w" ] || fail "$m: $(counts "$TMP/$m.json"), generated $w"
	if [ -n "$FIO" ]; then
		rm -f "$TMP"/flat_*
		fio --name=r --read_iolog="$TMP/t.bin" --ioengine=psync --write_lat_log="$TMP/flat" --log_offset=1 \
			--output-format=json --output="$TMP/$m.fio.json" 2>"$TMP/err" || fail "fio: $(head -1 "$TMP/err")"
		[ "$(counts "$TMP/$m.fio.json")" = "$w" ] || fail "fio 3.33: $(counts "$TMP/$m.fio.json"), generated $w"
		diff -u <(lat "$TMP/flat_clat.1.log") <(lat "$TMP/lat_clat.1.log") >&2 ||
			fail "$m: rqlock's I/Os (+) differ from fio 3.33's (-)"
	fi
	echo "ok: $m: $w"
done
echo "PASS"
