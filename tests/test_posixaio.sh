#!/usr/bin/env bash
# test_posixaio: ioengine=posixaio (devices/posixaio.c) moves the right
# bytes through the block layer under every lock mode of the registry: a
# write pass (sequential 8k, QD 8, two workers) stamps every 512 B sector
# with its offset, checked on disk from outside; a random 4k read pass
# through posixaio checks every stamp again (8192 sectors); a verify=md5
# job reads back every block it wrote; the report names the posixaio kind.  Bad input: exit 2, one line.
. "$(dirname "$0")/lib.sh"
need python3

f=$TMP/paio.img
modes=$(rq_modes)
[ -n "$modes" ] || fail "no lock modes in rqlock --list"
for mode in $modes; do
	rm -f "$f"
	"$RQLOCK" run --lock="$mode" --workers=2 --output-format=json --output="$TMP/w.json" \
		--name=w --filename="$f" --ioengine=posixaio --rw=write --bs=8k --size=4m --iodepth=8 \
		2>"$TMP/w.err" || fail "$mode: write pass failed: $(cat "$TMP/w.err")"
	[ -s "$TMP/w.err" ] && fail "$mode: write pass wrote stderr: $(cat "$TMP/w.err")"
	kind=$(json "$TMP/w.json" 'j["rqlock"]["devices"][0]["kind"]')
	[ "$kind" = posixaio ] || fail "$mode: the device kind is '$kind', not posixaio"
	ios=$(json "$TMP/w.json" 'j["jobs"][0]["write"]["total_ios"]')
	[ "$ios" = 512 ] || fail "$mode: $ios writes, expected 512"
	python3 - "$f" <<'PY' || fail "$mode: stamps on disk are wrong"
import struct, sys
data = open(sys.argv[1], 'rb').read()
assert len(data) == 4 << 20, len(data)
for off in range(0, len(data), 512):
    magic, where = struct.unpack_from('<QQ', data, off)
    assert magic == 0x72716c6f636b5354 and where == off, (off, hex(magic), where)
PY
	"$RQLOCK" run --lock="$mode" --workers=2 --output-format=json --output="$TMP/r.json" \
		--name=r --filename="$f" --ioengine=posixaio --rw=randread --bs=4k --size=4m --iodepth=16 \
		2>"$TMP/r.err" || fail "$mode: read pass failed: $(cat "$TMP/r.err")"
	v=$(json "$TMP/r.json" 'j["rqlock"]["sectors_verified"]')
	[ "$v" = 8192 ] || fail "$mode: read pass verified $v sectors, expected 8192"
	# fio's verify=md5: written, then every block read back and checked
	"$RQLOCK" run --lock="$mode" --workers=2 --output-format=json --output="$TMP/v.json" \
		--name=v --filename="$f" --ioengine=posixaio --rw=randwrite --bs=4k --size=4m --iodepth=16 \
		--verify=md5 2>"$TMP/v.err" || fail "$mode: verify=md5 failed: $(cat "$TMP/v.err")"
	r=$(json "$TMP/v.json" 'j["jobs"][0]["read"]["total_ios"]')
	[ "$r" = 1024 ] || fail "$mode: verify=md5 read back $r blocks, expected 1024"
done

cd "$TMP" || fail "cd $TMP"
bad() {
	local rc=0
	"$RQLOCK" run "$@" >bad.out 2>bad.err || rc=$?
	[ "$rc" -eq 2 ] || fail "$*: exit $rc, expected 2: $(cat bad.err)"
	[ "$(wc -l <bad.err)" -eq 1 ] || fail "$*: not one line: $(cat bad.err)"
	return 0
}
bad --name=x --ioengine=posixaio --filename="$TMP/no/such/dir/f" --size=1m --rw=read
bad --name=x --ioengine=posixaio --filename="$TMP/p" --size=1m --rw=read --hipri=1
[ -e "$TMP/p" ] && fail "a refused job created its file"
echo "test_posixaio: ok"
