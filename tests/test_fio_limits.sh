#!/usr/bin/env bash
# A size-bound job's passes and last I/O, side by side with fio 3.33: each
# job runs under fio and under rqlock on the same files, and the bytes and
# I/Os per direction must be the same.  fio never shortens its last I/O to
# the bytes left (io_u.c get_next_buflen()): it stops issuing once the
# bytes reach size (a block past it at most); a pass ends when the next
# I/O does not fit the region or the file, or the random map is full, and
# backend.c keep_running() then ends the job unless loops or io_size ask
# for more.  rqlock trimmed the last I/O to what was left of size and
# wrapped at the region's end instead: rw=read size=10k moved 10240 bytes
# where fio moves 12288, rw=randread size=13k did 4 I/Os where fio does 3
# (its map holds 3 blocks), two 10 KiB files written by 4k 20480 bytes
# where fio writes 16384.  Mixed sizes (bsrange, bssplit) come from fio's
# own streams (bsrange_state, draw.c), so sequential jobs are compared to
# the I/O; random ones draw their offsets apart from fio's, so there only
# the bytes are compared: they do not depend on the draws (sizes fit the
# region, the map shortens an I/O to the free run).  Skips (77) without
# fio 3.33.
. "$(dirname "$0")/lib.sh"
need python3
need_fio_333 "the amounts are fio 3.33's"

cd "$TMP" || fail "cd $TMP"
truncate -s 1M f || fail "truncate"
truncate -s 10k small || fail "truncate"

# counts TOOL JOB: "read:BYTES/IOS write:..." for the directions that moved
counts() {
	run_json "$1" "$2" | python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
print(" ".join("%s:%d/%d" % (d, j[d]["io_bytes"], j[d]["total_ios"])
               for d in ("read", "write", "trim") if j[d]["total_ios"]))'
}

n=0
# check MODE FILE OPTIONS...: MODE exact compares bytes and I/Os, bytes only the bytes
check() {
	local mode=$1 file=$2 job a b
	shift 2
	n=$((n + 1))
	job=j$n.fio
	{ echo "[j]"; echo "filename=$file"; echo "bs=4k"; printf '%s\n' "$@"; } >"$job"
	a=$(counts fio "$job")
	b=$(counts rqlock "$job")
	if [ "$mode" = bytes ]; then
		a=$(printf '%s' "$a" | sed 's|/[0-9]*||g')
		b=$(printf '%s' "$b" | sed 's|/[0-9]*||g')
	fi
	[ -n "$a" ] || fail "$file $*: fio moved nothing"
	[ "$a" = "$b" ] || fail "$file $*: rqlock $b, fio 3.33 $a"
	echo "ok: $file $* ($a)"
}

# a mix's directions: fio's own stream and seed (engine/frand.h), so the split is fio's to the I/O
# (fio's t0008: readwrite with verify_backlog writes 16568 of its 32768 KiB, its suite allowing 1 %)
# (a file each: fio writes what its buffers last read, and a block of rqlock's stamps moved to
# another offset is a mismatch to rqlock's exactly-once check)
truncate -s 1M m1 m2 m3 m4 || fail "truncate"
check exact m1 rw=readwrite size=1m rwmixread=70
check exact m2 rw=readwrite size=1m rwmixread=30 randseed=1234
check exact m3 rw=randrw size=1m rwmixread=60
check exact m4 rw=readwrite size=1m verify=crc32c verify_backlog=1 do_verify=1
# over passes: the I/O that finds the file done is drawn again in the next pass, and a
# sequential mix reads and writes each from its own position (fio's last_pos[ddir]), so its
# pass ends when one direction reaches the end (rqlock before: 1 I/O off, and 24 for m6)
truncate -s 1M m5 m6 m7 m8 || fail "truncate"
check exact m5 rw=randrw size=1m rwmixread=30 loops=2
check exact m6 rw=readwrite size=1m rwmixread=70 loops=3
check exact m7 rw=randrw size=1m rwmixread=50 loops=2 randrepeat=0 randseed=9
check exact m8 rw=rw:8k size=1m rwmixread=50

# one block size: the last I/O is a whole block
check exact f rw=read size=10k
check exact f rw=read size=9k
check exact f rw=read size=13k
check exact f rw=read size=10k loops=2
check exact f rw=read size=10k loops=3
check exact f rw=read size=10k bs=3k
check exact f rw=write size=13k
check exact f rw=read size=10k number_ios=5
check exact f rw=read size=13k offset=8k
# the pass ends at the file's end: the next block does not fit it
check exact small rw=read
check exact small rw=read size=10k
check exact small rw=read loops=2
check exact small rw=randread
# the random map holds size / bs blocks (3 here): full, the job is done
check exact f rw=randread size=13k
check exact f rw=randread size=13k loops=2
check exact f rw=randread size=13k norandommap
# io_size past size: passes repeat until io_size, the last block whole
check exact f rw=read size=10k io_size=30k
check exact f rw=randread size=13k io_size=30k
check exact small rw=read io_size=30k
# holes: the pass ends at the region's size
check exact f rw=read:4k size=10k
check exact f rw=write:4k size=10k
# mixed sizes fit the region from the offset (io_u_fits), never trimmed to the bytes left
check exact f rw=read size=13k bsrange=4k-8k
check exact f rw=read size=64k bssplit=4k/50:16k/50
# fio's size draws (get_next_buflen()): min + max * r / 2^32, capped, so not uniform;
# bssplit's first entry whose running share passes the draw (rqlock before: 86 writes
# where fio does 99, 41 reads for fio's 50, 204 writes for fio's 252)
check exact f rw=write size=1m bsrange=4k-16k
check exact f rw=read size=1m bssplit=4k/20:8k/50:64k/30
check exact f rw=write size=1m bsrange=4k-12k loops=2
check exact f rw=write size=1m bsrange=512-12k
truncate -s 1M m9 || fail "truncate"
check exact m9 rw=readwrite size=1m rwmixread=50 bsrange=4k-16k,8k-64k
check exact f rw=write size=1m bsrange=4k-16k verify=crc32c
check bytes f rw=randread size=64k bsrange=4k-16k
check bytes f rw=randread size=64k bssplit=4k/50:16k/50
check bytes f rw=randread size=61k bssplit=8k/50:16k/50
# where fio 3.33 draws sizes forever: at the 36k tail only 4k fits and it has no share, so
# every draw is 64k again; rqlock ends the file there, after the one 64k write (draw.c
# eng_pick_bs_fit()).  The binary before spun in its fill loop, deaf to SIGTERM: the
# timeout only turns that hang into a failure, it times nothing.
for rw in write randwrite; do
	printf '[t]\nfilename=f\nrw=%s\nbssplit=4k/0:64k/100\nsize=100k\n' "$rw" >tail.fio
	got=$(timeout -s KILL 600 "$RQLOCK" run --output-format=json tail.fio | python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
print("%d/%d" % (j["write"]["io_bytes"], j["write"]["total_ios"]))') || fail "bssplit tail, $rw: no end"
	[ "$got" = 65536/1 ] || fail "bssplit tail, $rw: $got, want 65536/1"
	echo "ok: rw=$rw bssplit=4k/0:64k/100 size=100k ends after 65536/1 (fio 3.33 never ends)"
done

# files_check MODE OPTIONS...: a job of several files fio and rqlock each
# lay out afresh (size / nrfiles each): a file is done when its next I/O
# does not fit it, the next file takes the I/O (fio's set_io_u_file())
files_check() {
	local mode=$1 a b
	shift
	n=$((n + 1))
	mkdir "$TMP/d$n" && cd "$TMP/d$n" || fail "mkdir"
	{ echo "[j]"; echo "bs=4k"; printf '%s\n' "$@"; } >j.fio
	a=$(counts fio j.fio)
	rm -f j.[0-9]*
	b=$(counts rqlock j.fio)
	cd "$TMP" || fail "cd"
	if [ "$mode" = bytes ]; then
		a=$(printf '%s' "$a" | sed 's|/[0-9]*||g')
		b=$(printf '%s' "$b" | sed 's|/[0-9]*||g')
	fi
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "$*: rqlock $b, fio 3.33 $a"
	echo "ok: $* ($a)"
}
files_check exact rw=write nrfiles=2 size=20k
files_check exact rw=write nrfiles=2 size=18k file_service_type=sequential
files_check exact rw=write nrfiles=2 size=24k file_service_type=random
files_check exact rw=write nrfiles=3 size=30k loops=2
files_check exact rw=write nrfiles=2 size=20k io_size=50k
files_check exact rw=randwrite nrfiles=2 size=26k
files_check exact rw=randwrite nrfiles=2 size=26k norandommap
files_check bytes rw=randwrite nrfiles=3 size=96k bsrange=4k-16k

# do_verify reads each pass back before the next (fio's thread_main(): do_io()
# then do_verify() per loop), and keep_running() counts those reads as bytes
# moved: loops=4 read 65536 of fio's 262144 bytes (the log kept the last
# pass's data only); io_size=256k past size=64k wrote 256 KiB where fio
# writes 128 KiB (its reads of the first pass count); holes, offset and
# loops=2 under verify_backlog (Debian's cross-stripe-verify) wrote 93 I/Os,
# fio 62.
check exact f rw=randwrite size=64k loops=4 verify=md5 direct=1
check exact f rw=write size=64k io_size=256k verify=md5 direct=1
check exact f rw=write:112k bs=16k offset=120k io_size=1m loops=2 verify=crc32c verify_backlog=1 direct=1
check exact f rw=randwrite size=64k loops=3 verify=md5 verify_backlog=4 direct=1

# An I/O the queue refuses (no request or tag free: 8 clones at iodepth 64
# on one device) goes again as drawn, as fio requeues a busy one; rqlock
# dropped it, and with it its block of the pass: 1826816 of 2097152 bytes
# written under global, 1470464 under mq.  Every lock mode.
for mode in $(rq_modes); do
	RQLOCK_LOCK=$mode check exact f rw=randwrite size=256k numjobs=8 group_reporting=1 \
		ioengine=libaio iodepth=64 direct=1
done

# The random map with mixed sizes: a block an earlier I/O covered gives the
# next free one (fio's axmap_next_free()), so free runs are taken from
# their start.  Drawing a fresh block instead split the runs: iometer's
# bssplit over 1 MiB took 417 I/Os on average where fio takes 215, and
# bsrange=4k-64k 62 where fio takes 41.  The draws differ from fio's, so
# the mean over 12 clones (numjobs, each seeded apart, the same seeds
# every run) must be within 15%.
# mean_ios TOOL OPTIONS...: the mean I/O count of a null randread job's clones
mean_ios() {
	local tool=$1 job=m$n.$1.fio
	shift
	{ echo "[j]"; echo "ioengine=null"; echo "rw=randread"; echo "numjobs=12"
	  printf '%s\n' "$@"; } >"$job"
	run_json "$tool" "$job" | python3 -c '
import json, sys
jobs = json.load(sys.stdin)["jobs"]
print(sum(j["read"]["total_ios"] for j in jobs) // len(jobs))'
}
map_check() {
	local a b
	n=$((n + 1))
	a=$(mean_ios fio "$@")
	b=$(mean_ios rqlock "$@")
	[ "$a" -gt 0 ] || fail "$*: fio did no I/O"
	[ $((b * 100)) -le $((a * 115)) ] && [ $((b * 100)) -ge $((a * 85)) ] ||
		fail "$*: rqlock $b I/Os on average, fio 3.33 $a (more than 15% apart)"
	echo "ok: $* (mean I/Os: fio $a, rqlock $b)"
}
map_check size=1m bssplit=512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10
map_check size=1m bsrange=4k-64k

# Reads and writes of different smallest sizes share one random map, whose
# blocks are the smallest of all; each direction draws in its own unit and
# looks that number up in the map (fio's __get_next_rand_offset() and
# mark_random_map(), 3.33 and since): a 1 MiB write whose number a 64 KiB
# read covered takes the next free one, often past the region, and the pass
# is over.  Debian's cmdprio-bssplit pattern over 128 MiB: fio's clones end
# after 65 to 128 MiB; rqlock covered all 128 every time (and its clones'
# streams were one stream shifted: they all ended alike).  The mean over 64
# clones (fixed seeds both) within 15%; the old binary covered all 131072 KiB
# (fio 109792).
# mean_kib TOOL OPTIONS...: the mean KiB a clone moves, of 64 null clones
mean_kib() {
	local tool=$1 job=mb$n.$1.fio
	shift
	{ echo "[j]"; echo "ioengine=null"; echo "numjobs=64"; printf '%s\n' "$@"; } >"$job"
	run_json "$tool" "$job" | python3 -c '
import json, sys
jobs = json.load(sys.stdin)["jobs"]
print(sum(j[d]["io_bytes"] for j in jobs for d in ("read", "write", "trim")) // len(jobs) >> 10)'
}
units_check() {
	local a b
	n=$((n + 1))
	a=$(mean_kib fio "$@")
	b=$(mean_kib rqlock "$@")
	[ $((b * 100)) -le $((a * 115)) ] && [ $((b * 100)) -ge $((a * 85)) ] ||
		fail "$*: rqlock $b KiB per clone on average, fio 3.33 $a (more than 15% apart)"
	echo "ok: $* (mean KiB: fio $a, rqlock $b)"
}
units_check rw=randrw size=128m bssplit=64k/40:1024k/60,1024k/100
# trims larger than the read and write sizes: fio's 29 of 64 trims (rqlock: 64)
units_check rw=randtrim size=1m bs=4k,4k,16k
echo "PASS"
