#!/usr/bin/env bash
# zonemode=strided with random I/O (issue 26: --parse-only accepted it, the
# run refused it).  fio's rule (io_u.c setup_strided_zone_mode): a zone is
# zonerange bytes; after zonesize bytes of I/O the next zone begins
# zonerange + zoneskip further on, wrapping to offset at the file's end;
# random draws stay in the zone, and every zonerange bytes of I/O the pass
# starts over, so with the random map or lfsr each zonerange's worth of
# I/Os covers the zone's blocks once.  norandommap: inside the zone only.
# Also: filesize is the file's size with offset inside it (fio), and bad
# zone options exit 2 with one line.
. "$(dirname "$0")/lib.sh"

# run NAME ZONERANGE ZONESIZE ZONESKIP OFFSET FILESIZE IOSIZE EXTRA...
run() {
	local name=$1 zr=$2 zs=$3 zk=$4 off=$5 fsize=$6 ios=$7
	shift 7
	"$RQLOCK" run --name="$name" --ioengine=null --rw=randread --bs=4k --zonemode=strided \
		--zonerange="$zr" --zonesize="$zs" --zoneskip="$zk" --offset="$off" \
		--filesize="$fsize" --size="$fsize" --io_size="$ios" --log_offset=1 \
		--write_iops_log="$TMP/$name" --output="$TMP/$name.out" "$@" 2>"$TMP/$name.err" ||
		{ cat "$TMP/$name.err" >&2; fail "$name: exit status"; }
	[ -s "$TMP/$name.err" ] && fail "$name: stderr: $(cat "$TMP/$name.err")"
	python3 - "$TMP/${name}_iops.1.log" "$zr" "$zs" "$zk" "$off" "$fsize" "$ios" "$name" "$*" <<'PY' || exit 1
import sys
def num(v):
    return int(v[:-1]) * {'k': 1 << 10, 'm': 1 << 20}[v[-1]] if v[-1] in 'km' else int(v)
log, zr, zs, zk, off, fsize, ios = sys.argv[1], *map(num, sys.argv[2:8])
name, extra = sys.argv[8], sys.argv[9]
offs = [int(l.split(',')[4]) for l in open(log) if l.strip()]
bs = 4096
if len(offs) != ios // bs:
    sys.exit(f"FAIL {name}: {len(offs)} I/Os, want {ios // bs}")
cover = 'norandommap' not in extra or 'lfsr' in extra
zone, done, seen = off, 0, set()
for i, o in enumerate(offs):
    if done == zs:
        zone, done = zone + zr + zk, 0
        if zone >= fsize:
            zone = off
    if done % zr == 0:
        seen = set()
    done += bs
    if not zone <= o < zone + zr or o % bs:
        sys.exit(f"FAIL {name}: I/O {i} at {o} outside zone [{zone}, {zone + zr})")
    if cover:
        if o in seen:
            sys.exit(f"FAIL {name}: I/O {i} at {o} repeats a block in the pass")
        seen.add(o)
        if len(seen) * bs == zr and done % zr:
            sys.exit(f"FAIL {name}: pass over before zonerange bytes")
PY
}

run eq 16k 16k 0 0 256k 256k
run big 16k 64k 0 0 256k 256k			# zonesize > zonerange: the zone again
run small 32k 8k 0 0 256k 128k			# zonesize < zonerange
run skip 16k 16k 32k 0 256k 128k		# zoneskip, wrapping at the file's end
run off 16k 16k 0 64k 128k 128k			# offset: wraps back to it
run lfsr 64k 64k 0 0 1m 1m --random_generator=lfsr --norandommap=1
run lfsrbig 16k 48k 0 32k 256k 256k --random_generator=lfsr
run norm 16k 32k 16k 0 256k 256k --norandommap=1

# filesize is the file's size: offset=32k filesize=64k reads [32k, 64k), as fio
"$RQLOCK" run --name=fs --ioengine=null --rw=read --bs=4k --offset=32k --size=64k --filesize=64k \
	--log_offset=1 --write_iops_log="$TMP/fs" --output="$TMP/fs.out" || fail "fs: exit status"
got=$(cut -d, -f5 "$TMP/fs_iops.1.log" | tr -d ' ' | tr '\n' ' ')
[ "$got" = "32768 36864 40960 45056 49152 53248 57344 61440 " ] || fail "filesize+offset: $got"

# bad zone options: exit 2, one line, as fio refuses them
for bad in "--zonesize=4k" "--zonemode=none --zonesize=4k" "--zonemode=strided"; do
	# shellcheck disable=SC2086
	"$RQLOCK" run --parse-only --name=b --ioengine=null --size=1m $bad >"$TMP/b.out" 2>"$TMP/b.err"
	rc=$?
	[ $rc -eq 2 ] || fail "'$bad': exit $rc, want 2"
	[ "$(wc -l <"$TMP/b.err")" -eq 1 ] || fail "'$bad': stderr: $(cat "$TMP/b.err")"
	[ -s "$TMP/b.out" ] && fail "'$bad': wrote to stdout"
done
echo "PASS"
