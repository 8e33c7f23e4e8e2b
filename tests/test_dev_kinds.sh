#!/usr/bin/env bash
# Every device kind that needs no privilege, in every lock mode rqlock
# accepts, runs a write job, a read job and a write-then-read job whose
# read checks the data stamps (rqlock.sectors_verified): null, ram (inline
# and deferred completion), file (io_uring), aio on a file (libaio), and
# the floppy and hdd models over RAM and over a file.  Block devices
# (blkdev, aio on a loop device) are test_dev_loop.sh's; nvme-pt needs an
# NVMe namespace and is exercised by the QEMU harness (scripts/vm).
. "$(dirname "$0")/test_dev_lib.sh"

modes=$(lock_modes)
echo "$modes" | grep -qx global || fail "--lock=global refused"
echo "lock modes: $(echo $modes)"

# name | ioengine | device spec | bs | size | depth | kind expected | keeps data across runs
kinds="null|io_uring|@null0|4k|256k|8|null|no
ram|io_uring|@ram0,size=1m|4k|256k|8|ram|no
ram-irq1|io_uring|@ram1,irqmode=1,size=1m|4k|256k|8|ram|no
ram-timer|io_uring|@ram2,delay_us=20,size=1m|4k|256k|8|ram|no
file|io_uring|$TMP/file.img|4k|256k|8|file|yes
aio-file|libaio|$TMP/aio.img|4k|256k|8|aio|yes
floppy|io_uring|@floppy0|4k|8k|2|floppy|no
floppy-file|io_uring|@floppy1,file=$TMP/fd.img,hold_us=50|4k|8k|2|floppy|yes
hdd|io_uring|@hdd0|4k|64k|4|hdd|no
hdd-file|io_uring|@hdd1,file=$TMP/hd.img,size=1m|4k|64k|4|hdd|yes"

while IFS='|' read -r name engine spec bs size depth kind keeps; do
	sectors=$(( $(numfmt --from=iec "${size^^}") / 512 ))
	[ "$kind" = null ] && sectors=0
	for mode in $modes; do
		t="$name.$mode"
		jobfile "$TMP/$t.w.fio" "$engine" "$spec" "$bs" "$size" "$depth" write
		jobfile "$TMP/$t.r.fio" "$engine" "$spec" "$bs" "$size" "$depth" read
		jobfile "$TMP/$t.v.fio" "$engine" "$spec" "$bs" "$size" "$depth" verify
		run_ok "$t.w" --lock="$mode" "$TMP/$t.w.fio"
		[ "$(devfield "$t.w" kind)" = "$kind" ] || fail "$t: kind $(devfield "$t.w" kind), expected $kind"
		[ "$(devfield "$t.w" logical_block_size)" -gt 0 ] || fail "$t: no logical block size"
		[ "$(devfield "$t.w" queue_depth)" -gt 0 ] || fail "$t: no queue depth"
		run_ok "$t.r" --lock="$mode" "$TMP/$t.r.fio"
		# a device that keeps its data shows the write run's stamps to a later run
		if [ "$keeps" = yes ]; then
			v=$(verified "$t.r")
			[ "$v" = "$sectors" ] || fail "$t: read run verified $v sectors, expected $sectors"
		fi
		run_ok "$t.v" --lock="$mode" "$TMP/$t.v.fio"
		v=$(verified "$t.v")
		[ "$v" = "$sectors" ] || fail "$t: write-then-read verified $v sectors, expected $sectors"
		echo "ok: $t (verified $v sectors; $(devfield "$t.w" model))"
		rm -f "$TMP/file.img" "$TMP/aio.img" "$TMP/fd.img" "$TMP/hd.img"
	done
done <<<"$kinds"

# rqlock's --device NAME=SPEC: the job file names a plain "floppy0", as fio would take it
printf '[fd]\nfilename=floppy0\nrw=randread\nbs=4k\nsize=8k\n' >"$TMP/alias.fio"
run_ok alias --device floppy0=@floppy,hold_us=50 "$TMP/alias.fio"
[ "$(devfield alias kind)" = floppy ] || fail "--device floppy0=@floppy: kind $(devfield alias kind)"
devfield alias model | grep -q "hold=50us" || fail "--device: options lost: $(devfield alias model)"
# a model over a short file that a job only reads: zeros past its end, the file untouched
truncate -s 4k "$TMP/short.img"
jobfile "$TMP/short.fio" io_uring "@hdd2,file=$TMP/short.img,size=64k" 4k 64k 4 read
run_ok short "$TMP/short.fio"
[ "$(stat -c %s "$TMP/short.img")" = 4096 ] || fail "a read job extended the backing file"

# a floppy's geometry fixes its size: a job past it is refused before anything runs
jobfile "$TMP/big.fio" io_uring @floppy0 4k 2m 1 write
run_refused big "$TMP/big.fio"
grep -q "past the end" "$TMP/big.err" || fail "floppy overrun: $(cat "$TMP/big.err")"
# unknown options name themselves
jobfile "$TMP/opt.fio" io_uring @hdd0,spindles=3 4k 64k 1 read
run_refused opt "$TMP/opt.fio"
grep -q "spindles" "$TMP/opt.err" || fail "unknown option not named: $(cat "$TMP/opt.err")"
# io_uring_cmd on something that is not an NVMe generic device
jobfile "$TMP/pt.fio" io_uring_cmd "$TMP/pt.img" 4k 64k 1 read
: >"$TMP/pt.img"
run_refused pt "$TMP/pt.fio"
grep -q "ngXnY" "$TMP/pt.err" || fail "io_uring_cmd on a file: $(cat "$TMP/pt.err")"
echo "test_dev_kinds: ok"
