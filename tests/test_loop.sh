#!/usr/bin/env bash
# The data test on a loop device made for the test over a temporary file
# (direct-io on), both lock modes; then a loop device holding an ext4
# filesystem must be refused for writes (exit 2, nothing written).
. "$(dirname "$0")/lib.sh"
need python3
[ "$(id -u)" -eq 0 ] || skip "needs root for losetup"
need losetup
img=$TMP/loop.img
truncate -s 16M "$img"
dev=$(losetup --find --show --direct-io=on "$img" 2>/dev/null) || skip "losetup cannot attach a loop device here"
cleanup_hooks+=("losetup -d $dev")

for mode in global per-queue; do
	printf '[w]\nfilename=%s\nrw=write\nbs=4k\nsize=8m\niodepth=16\ndirect=1\n' "$dev" >"$TMP/w.fio"
	printf '[r]\nfilename=%s\nrw=randread\nbs=4k\nsize=8m\niodepth=16\ndirect=1\n' "$dev" >"$TMP/r.fio"
	"$RQLOCK" run --lock=$mode --output-format=json --output "$TMP/w.json" "$TMP/w.fio" || fail "$mode: write"
	kind=$(json "$TMP/w.json" 'j["rqlock"]["devices"][0]["subkind"]')
	[ "$kind" = loop ] || fail "$mode: device kind '$kind', expected loop"
	"$RQLOCK" run --lock=$mode --output-format=json --output "$TMP/r.json" "$TMP/r.fio" || fail "$mode: read"
	v=$(json "$TMP/r.json" 'j["rqlock"]["sectors_verified"]')
	[ "$v" = 16384 ] || fail "$mode: verified $v sectors, expected 16384"
done

# a filesystem on it: writes refused, the filesystem untouched
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 missing for the refusal half"
mkfs.ext4 -q -F "$dev" || fail "mkfs.ext4"
before=$(md5sum <"$dev")
"$RQLOCK" run "$TMP/w.fio" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc -eq 2 ] || fail "exit $rc, expected 2"
[ ! -s "$TMP/out" ] || fail "stdout not empty"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "expected one line on stderr: $(cat "$TMP/err")"
grep -q "ext2/3/4" "$TMP/err" || fail "refusal does not name the signature: $(cat "$TMP/err")"
[ "$(md5sum <"$dev")" = "$before" ] || fail "the filesystem was written"
echo "test_loop: ok ($dev)"
