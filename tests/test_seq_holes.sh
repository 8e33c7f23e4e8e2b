#!/usr/bin/env bash
# Regression for issue 26 (fio's t0007): rw=read:512k with bs=1m over
# 128m read the full 128 MiB, wrapping around, where fio's pass ends at
# the region's end: 85 reads, 87040 KiB.  A sequential job with holes,
# not time_based and without io_size, does what fits; loops repeat it.
# The amounts are fio 3.33's for the same jobs.
. "$(dirname "$0")/lib.sh"

# check NAME DIR KIB OPTIONS...: a null job moves KIB KiB in direction DIR
check() {
	local name=$1 dir=$2 want=$3
	shift 3
	{ echo "[$name]"; echo "ioengine=null"; printf '%s\n' "$@"; } >"$TMP/$name.fio"
	"$RQLOCK" run --output-format=json --output "$TMP/$name.json" "$TMP/$name.fio" 2>"$TMP/$name.err" ||
		{ cat "$TMP/$name.err" >&2; fail "$name: exit"; }
	got=$(json "$TMP/$name.json" "j['jobs'][0]['$dir']['io_kbytes']")
	[ "$got" = "$want" ] || fail "$name: $got KiB, fio moves $want"
}

check t0007 read 87040 size=128m rw=read:512k bs=1m norandommap
check loops read 174080 size=128m rw=read:512k bs=1m loops=2
check write write 87040 size=128m rw=write:512k bs=1m
# the holes carry the offset past the file's end (10 MiB, the null file's
# size): fio 3.33 starts again at the region's start (get_next_seq_offset)
# and goes on to size, 3414 reads; 3840 was what fits without the wrap
check odd read 10242 size=10m rw=read:5k bs=3k
check no_holes read 131072 size=128m rw=read bs=1m
check io_size read 32768 size=8m rw=read:4k bs=4k io_size=32m
echo "PASS"
