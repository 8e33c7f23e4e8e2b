#!/usr/bin/env bash
# fio's everyday options (issue 15), each shown by its effect on a run over
# temporary files or built-in devices: the bytes and I/Os it does, the
# files it lays out and removes, the offsets it writes (read back from the
# stamps rqlock writes: 'rqlockST' and the offset, at each 512-byte
# sector), the errors it passes over.  Lower bounds only where a time is
# involved (a rate cannot finish early).
. "$(dirname "$0")/lib.sh"
need python3

# run NAME JOBTEXT: the job file $TMP/NAME.fio, JSON to $TMP/NAME.json; must exit 0
run() {
	printf '%b' "$2" >"$TMP/$1.fio"
	(cd "$TMP" && "$RQLOCK" run --output-format=json --output="$TMP/$1.json" "$TMP/$1.fio") \
		2>"$TMP/$1.err" || fail "$1: exit $?: $(cat "$TMP/$1.err")"
}
# refused NAME PATTERN JOBTEXT: exit 2 and one line matching PATTERN
refused() {
	printf '%b' "$3" >"$TMP/$1.fio"
	local rc=0
	(cd "$TMP" && "$RQLOCK" run --output-format=json "$TMP/$1.fio") >"$TMP/$1.out" 2>"$TMP/$1.err" || rc=$?
	[ $rc -eq 2 ] || fail "$1: exit $rc, expected 2: $(cat "$TMP/$1.err")"
	grep -qE -- "$2" "$TMP/$1.err" || fail "$1: '$(cat "$TMP/$1.err")' does not match '$2'"
}
# stamps FILE: the offsets (in KiB) of the 4 KiB blocks that carry rqlock's stamp
stamps() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
out = []
for off in range(0, len(d), 4096):
    if d[off:off + 8] == struct.pack('<Q', 0x72716c6f636b5354):
        out.append(struct.unpack('<Q', d[off + 8:off + 16])[0] // 1024)
print(' '.join(map(str, out)))
PY
}
J() { json "$TMP/$1.json" "$2"; }

# loops and io_size: the amount of I/O
run loops '[j]\nfilename=@ram0\nsize=256k\nbs=4k\nrw=write\nloops=3\n'
[ "$(J loops "j['jobs'][0]['write']['io_bytes']")" = $((3 * 256 * 1024)) ] || fail "loops=3: $(J loops "j['jobs'][0]['write']['io_bytes']") bytes"
run iosize '[j]\nfilename=@ram0\nsize=256k\nbs=4k\nrw=randread\nio_size=1m\n'
[ "$(J iosize "j['jobs'][0]['read']['io_bytes']")" = $((1024 * 1024)) ] || fail "io_size=1m: $(J iosize "j['jobs'][0]['read']['io_bytes']") bytes"
run nios '[j]\nioengine=null\nsize=1m\nbs=4k\nnumber_ios=10\n'
[ "$(J nios "j['jobs'][0]['read']['total_ios']")" = 10 ] || fail "number_ios=10: $(J nios "j['jobs'][0]['read']['total_ios']") I/Os"
echo "ok: loops, io_size, number_ios"

# nrfiles, filename_format, directory lists, filesize ranges, unlink
mkdir -p "$TMP/d1" "$TMP/d2"
run files "[j]\ndirectory=$TMP/d1:$TMP/d2\nnrfiles=3\nsize=192k\nbs=4k\nrw=write\nnumjobs=2\n"
for c in 0 1; do
	d=$TMP/d$((c + 1))
	for f in 0 1 2; do
		[ -f "$d/j.$c.$f" ] || fail "nrfiles: no $d/j.$c.$f (fio's name): $(ls -R "$TMP/d1" "$TMP/d2")"
		[ "$(stat -c %s "$d/j.$c.$f")" = 65536 ] || fail "nrfiles: $d/j.$c.$f is $(stat -c %s "$d/j.$c.$f") bytes"
	done
done
run fmt "[j]\ndirectory=$TMP/d1\nnrfiles=2\nfilename_format=f.\$filenum.\$jobname\nfilesize=64k-128k\nbs=4k\nrw=write\n"
for f in f.0.j f.1.j; do
	s=$(stat -c %s "$TMP/d1/$f") || fail "filename_format: no $f"
	[ "$s" -ge 65536 ] && [ "$s" -le 131072 ] && [ $((s % 4096)) -eq 0 ] || fail "filesize=64k-128k: $f is $s bytes"
done
run unl "[j]\ndirectory=$TMP/d2\nnrfiles=2\nsize=64k\nrw=write\nunlink=1\n"
[ ! -e "$TMP/d2/j.0.0" ] && [ ! -e "$TMP/d2/j.0.1" ] || fail "unlink=1 left $(ls "$TMP/d2")"
[ -e "$TMP/d2/j.1.0" ] || fail "unlink=1 removed another job's file"
refused nocreate "allow_file_create=0" "[j]\nfilename=$TMP/missing\nsize=64k\nallow_file_create=0\n"
[ ! -e "$TMP/missing" ] || fail "allow_file_create=0 created the file"
echo "ok: nrfiles, filename_format, directory, filesize, unlink, allow_file_create"

# offsets: backwards, strided zones, zoned distribution, blockalign
run back "[j]\nfilename=$TMP/back\nsize=64k\nbs=4k\nrw=write:-8k\nnumber_ios=4\n"
got=$(stamps "$TMP/back")
# fio's order: 0, then from the end backwards: 56k, 52k, 48k (each 4k before the last)
[ "$got" = "0 48 52 56" ] || fail "rw=write:-8k wrote the blocks at $got KiB"
run strided "[j]\nfilename=$TMP/strided\nsize=256k\nbs=4k\nrw=write\nzonemode=strided\nzonesize=16k\nzoneskip=48k\nnumber_ios=8\n"
[ "$(stamps "$TMP/strided")" = "0 4 8 12 64 68 72 76" ] || fail "zonemode=strided wrote $(stamps "$TMP/strided") KiB"
run zoned "[j]\nfilename=$TMP/zoned\nsize=1m\nbs=4k\nrw=randwrite\nrandom_distribution=zoned:100/10\nnumber_ios=64\n"
for k in $(stamps "$TMP/zoned"); do [ "$k" -lt 103 ] || fail "zoned:100/10 wrote at ${k} KiB, past the first 10%"; done
run ba "[j]\nfilename=$TMP/ba\nsize=1m\nbs=4k\nrw=randwrite\nba=64k\nnorandommap\nnumber_ios=32\n"
for k in $(stamps "$TMP/ba"); do [ $((k % 64)) -eq 0 ] || fail "ba=64k wrote at ${k} KiB"; done
echo "ok: rw=...:-N, zonemode=strided, random_distribution=zoned, ba"

# data: buffer_pattern, verify_interval and verify=meta
run pat "[j]\nfilename=$TMP/pat\nsize=64k\nbs=4k\nrw=write\nbuffer_pattern=0xdeadbeef\n"
python3 -c "import sys; d=open(sys.argv[1],'rb').read(); sys.exit(d != bytes.fromhex('deadbeef') * (len(d)//4))" "$TMP/pat" \
	|| fail "buffer_pattern: the file is not the pattern"
run viv "[j]\nfilename=$TMP/viv\nsize=256k\nbs=64k\nrw=write\nverify=crc32c\nverify_interval=4k\n"
n=$(python3 -c "import sys,struct; print(open(sys.argv[1],'rb').read().count(struct.pack('<Q',0x7271766572696679)))" "$TMP/viv")
[ "$n" = 64 ] || fail "verify_interval=4k: $n headers in 256k, expected 64"
[ "$(J viv "j['jobs'][0]['error']")" = 0 ] || fail "verify_interval: the read back failed"
run meta "[j]\nfilename=$TMP/meta\nsize=64k\nbs=4k\nrw=write\nverify=meta\nverify_pattern=0xaa555aa5\n"
[ "$(J meta "j['jobs'][0]['error']")" = 0 ] || fail "verify=meta: the read back failed"
echo "ok: buffer_pattern, verify_interval, verify=meta"

# errors: ignore_error passes over the listed errno only
run ign '[j]\nfilename=@fault,eio_every=50,of=@null0\nsize=1m\nbs=4k\nignore_error=EIO\n'
# as fio: the run goes on (exit 0), the first error is still the job's error
[ "$(J ign "j['jobs'][0]['total_err'] == 5 and j['jobs'][0]['read']['total_ios'] == 256 - 5")" = True ] \
	|| fail "ignore_error=EIO: total_err $(J ign "j['jobs'][0]['total_err']")"
printf '[j]\nfilename=@fault,eio_every=50,of=@null0\nsize=1m\nbs=4k\nignore_error=ENOSPC\n' >"$TMP/ign2.fio"
"$RQLOCK" run --output-format=json --output="$TMP/ign2.json" "$TMP/ign2.fio" 2>/dev/null && fail "ignore_error=ENOSPC passed over an EIO"
echo "ok: ignore_error"

# stats: gtod_reduce keeps no latencies
run gtod '[j]\nioengine=null\nsize=1m\nbs=4k\ngtod_reduce=1\n'
[ "$(J gtod "j['jobs'][0]['read']['clat_ns']['N']")" = 0 ] && [ "$(J gtod "j['jobs'][0]['read']['lat_ns']['N']")" = 0 ] \
	|| fail "gtod_reduce=1 kept latencies"
[ "$(J gtod "j['jobs'][0]['read']['total_ios']")" = 256 ] || fail "gtod_reduce=1 lost I/Os"
echo "ok: gtod_reduce"

# jobs: exitall, exit_what=all, flow, sync engines, rate and startdelay (lower bounds)
run exitall '[global]\nioengine=null\nbs=4k\n[short]\nsize=64k\nexitall\n[long]\nsize=64k\ntime_based\nruntime=600\n'
[ "$(J exitall "j['jobs'][1]['job_runtime'] < 300000")" = True ] || fail "exitall: the long job was not ended"
run exitwhat '[global]\nioengine=null\nbs=4k\nsize=64k\n[a]\nexitall\nexit_what=all\n[b]\nstonewall\n'
[ "$(J exitwhat "j['jobs'][1]['read']['total_ios']")" = 0 ] || fail "exit_what=all: a later job ran"
# exitall: the first clone to end stops the other, else the survivor runs without its
# partner's weight (fio's flow_exit_job) for as long as their workers' clocks differ
# (ratio 1.6 seen under load); the start needs nothing: the first waits for the other
run flow '[global]\nioengine=null\nbs=4k\nsize=64m\ntime_based\nruntime=1\nexitall\n[a]\nflow=1\n[b]\nflow=3\n'
r=$(J flow "round(j['jobs'][1]['read']['total_ios'] / j['jobs'][0]['read']['total_ios'], 1)")
python3 -c "import sys; sys.exit(not 2.5 <= float(sys.argv[1]) <= 3.5)" "$r" || fail "flow=1 vs flow=3: ratio $r"
run psync '[j]\nfilename=@null0\nsize=64k\nioengine=psync\niodepth=8\n'
# the note is in the normal output, as fio's; JSON and stderr have none of it
grep -q "capped" "$TMP/psync.err" "$TMP/psync.json" && fail "psync: the depth note outside the normal output"
(cd "$TMP" && "$RQLOCK" run "$TMP/psync.fio" 2>"$TMP/psync.err2") | grep -q "queue depth capped at 1" ||
	fail "psync: no note on the depth in the normal output"
[ -s "$TMP/psync.err2" ] && fail "psync: stderr: $(cat "$TMP/psync.err2")"
[ "$(J psync "j['jobs'][0]['iodepth_level']['1']")" = 100.0 ] || fail "psync: depth above 1"
run rate '[j]\nioengine=null\nsize=256k\nbs=4k\nrate=512k\n'
[ "$(J rate "j['jobs'][0]['read']['runtime'] >= 400")" = True ] || fail "rate=512k: 256k in $(J rate "j['jobs'][0]['read']['runtime']") ms"
run delay '[j]\nioengine=null\nsize=64k\nstartdelay=1\n'
[ "$(J delay "j['jobs'][0]['elapsed'] >= 1")" = True ] || fail "startdelay=1: elapsed $(J delay "j['jobs'][0]['elapsed']") s"
echo "ok: exitall, exit_what, flow, psync, rate, startdelay"

# parsed for --parse-only and --showcmd, refused when run: file:line and why
# trims run now (tests/test_trim.sh); a device with no discard (a 2.4 model) refuses them
refused trim "trim.fio:1: job 'j': rw=randtrim trims, and device @floppy0 \\(floppy\\) has no discard" '[j]\nrw=randtrim\nfilename=@floppy0\nsize=64k\n'
# zonemode=zbd runs (tests/test_zbd.sh); emulated zones need their size, as fio's
refused zbd "zbd.fio:1: job 'j': .*zonemode=zbd needs zonesize" '[j]\nzonemode=zbd\nioengine=null\nsize=64k\n'
echo "test_fio_options: ok"
