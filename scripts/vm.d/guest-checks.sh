#!/bin/sh
# guest-checks.sh - what scripts/vm --checks runs inside the guest, with
# busybox sh (not bash).  Each check is one step with a line in
# $VM_RESULTS/steps.tsv:
#
#   NAME <TAB> ok|fail|unavailable <TAB> EXIT <TAB> SECONDS <TAB> NOTE
#
# "unavailable" is a feature this build of rqlock does not have yet: a
# command it does not know, an ioengine it refuses (exit 2).  Lock modes
# are probed first with a tiny ioengine=null job and only the accepted ones
# are run, so exit 2 from a lock mode or from the io_uring engine is a
# failure, never "unavailable".  A data mismatch (exit 1), a crash or a
# hang is always a failure.  Every rqlock and fio run has a line in
# runs.tsv naming its JSON, which the host's judge.py reads: that is where
# counts, verified sectors, device kinds and the nvme-cli agreement are
# checked.  The SECONDS are TCG wall time, not performance figures.
. /vm/env
R=$VM_RESULTS
STEPS=$R/steps.tsv
RUNS=$R/runs.tsv
STEP_TIMEOUT=${VM_STEP_TIMEOUT:-300}
BS=4k
DEPTH=16
REGION=8M			# per path on NVMe and SATA: two paths per device
REGION_BYTES=8388608
mkdir -p "$R/identify" "$R/runs" "$R/inventory"
: >"$STEPS"
: >"$RUNS"

now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# record NAME STATUS EXIT SECONDS NOTE
record() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$STEPS"
	printf 'rqvm-check: %-44s %-11s %s\n' "$1" "$2" "$5"
}
firstline() { head -n 1 "$1" 2>/dev/null | tr '\t' ' ' | cut -c1-200; }
have() { command -v "$1" >/dev/null 2>&1; }

# ---- inventory: what the kernel's drivers made ---------------------------

t=$(now)
{
	printf 'name\tsectors\tlogical_block_size\tnr_requests\tqueue_depth\trotational\tscheduler\tvendor\tmodel\n'
	for b in /sys/block/*; do
		n=${b##*/}
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$(cat $b/size)" \
			"$(cat $b/queue/logical_block_size)" "$(cat $b/queue/nr_requests 2>/dev/null)" \
			"$(cat $b/device/queue_depth 2>/dev/null)" "$(cat $b/queue/rotational)" \
			"$(cat $b/queue/scheduler 2>/dev/null)" "$(cat $b/device/vendor 2>/dev/null | tr -s ' ')" \
			"$(cat $b/device/model 2>/dev/null | tr -s ' ')"
	done
} >"$R/inventory/sysfs.tsv"
# which guest name is which QEMU disk: nvme by namespace id, SATA by the
# serial QEMU gave the port (libata's VPD page 0x80), for the host's judge
for b in /sys/block/*; do
	n=${b##*/}
	case $n in
	nvme*) id=nvme-ns$(cat $b/nsid 2>/dev/null) ;;
	sd*) id=$(tail -c +5 $b/device/vpd_pg80 2>/dev/null | tr -d '\0 ' | sed 's/^rqvm-//') ;;
	fd*) id=$n ;;
	*) continue ;;
	esac
	printf '%s\t%s\n' "$n" "$id"
done >"$R/inventory/identity.tsv"
ls -l /dev >"$R/inventory/dev.txt"
cat /proc/partitions >"$R/inventory/partitions.txt"
lsmod >"$R/inventory/modules.txt" 2>/dev/null
uname -a >"$R/inventory/uname.txt"
missing=""
for d in $(cat /vm/expect); do [ -e /dev/$d ] || missing="$missing $d"; done
if [ -z "$missing" ]; then
	record inventory ok 0 "$(since $t)" "$(cat /vm/expect | tr '\n' ' ')"
else
	record inventory fail 1 "$(since $t)" "missing:$missing"
fi
if [ "$VM_SATA" -gt 0 ]; then
	qd=$(cat /sys/block/sda/device/queue_depth 2>/dev/null)
	if [ "$qd" = 32 ]; then
		record sata-ncq-depth ok 0 0 "sda queue_depth 32 (libata NCQ)"
	else
		record sata-ncq-depth fail 1 0 "sda queue_depth '$qd', expected 32"
	fi
fi

# ---- identify: rqlock devices, nvme-cli ----------------------------------

# devices LABEL [ARGS...]: one `rqlock devices --json` listing into identify/
devices() {
	label=$1
	shift
	t=$(now)
	timeout 60 rqlock devices --json "$@" >"$R/identify/$label.json" 2>"$R/identify/$label.err"
	rc=$?
	case $rc in
	0) record "$label" ok 0 "$(since $t)" "rqlock devices --json $*" ;;
	2) record "$label" unavailable 2 "$(since $t)" "not available in this build: $(firstline "$R/identify/$label.err")"
	   rm -f "$R/identify/$label.json" ;;
	*) record "$label" fail $rc "$(since $t)" "$(firstline "$R/identify/$label.err")" ;;
	esac
}
# Before any I/O; --all too, since a floppy's size reads 0 in sysfs until
# the driver has seen the medium on a first open; again after all the I/O.
devices rqlock-devices
[ $rc -eq 0 ] && devices rqlock-devices-all --all

if [ "$VM_NVME" -gt 0 ]; then
	if have nvme; then
		t=$(now)
		timeout 60 nvme list -o json >"$R/identify/nvme-list.json" 2>"$R/identify/nvme-list.err"
		rc=$?
		[ $rc -eq 0 ] && record nvme-list ok 0 "$(since $t)" "nvme list -o json" \
			|| record nvme-list fail $rc "$(since $t)" "$(firstline "$R/identify/nvme-list.err")"
		t=$(now)
		timeout 60 nvme id-ctrl /dev/nvme0 -o json >"$R/identify/nvme-id-ctrl-nvme0.json" 2>"$R/identify/id-ctrl.err"
		rc=$?
		[ $rc -eq 0 ] && record nvme-id-ctrl ok 0 "$(since $t)" "/dev/nvme0" \
			|| record nvme-id-ctrl fail $rc "$(since $t)" "$(firstline "$R/identify/id-ctrl.err")"
		i=1
		while [ $i -le "$VM_NVME" ]; do
			for d in nvme0n$i ng0n$i; do
				t=$(now)
				timeout 60 nvme id-ns /dev/$d -o json >"$R/identify/nvme-id-ns-$d.json" 2>"$R/identify/id-ns-$d.err"
				rc=$?
				[ $rc -eq 0 ] && record "nvme-id-ns-$d" ok 0 "$(since $t)" "/dev/$d" \
					|| record "nvme-id-ns-$d" fail $rc "$(since $t)" "$(firstline "$R/identify/id-ns-$d.err")"
			done
			i=$((i + 1))
		done
	else
		record nvme-list unavailable 127 0 "nvme-cli is not in the guest (not installed on the host)"
	fi
fi

# ---- lock modes this build accepts -----------------------------------------

printf '[probe]\nioengine=null\nrw=read\nbs=4k\nsize=1m\n' >/tmp/probe.fio
named=$(rqlock run --lock=rqvm-no-such-mode /tmp/probe.fio 2>&1 | sed -n 's/.*unknown lock mode (\([^)]*\)).*/\1/p' | tr '|,' '  ')
modes="" tried=""
# the registry's modes (`rqlock --list`), and any the error message names
for m in $named $(rqlock --list 2>/dev/null | sed -n '/^Lock modes/,/^$/s/^  \([^ ][^ ]*\) .*/\1/p'); do
	case " $modes $tried " in *" $m "*) continue ;; esac
	tried="$tried $m"
	t=$(now)
	timeout 60 rqlock run --lock=$m --output-format=json --output /tmp/probe.json /tmp/probe.fio \
		>/dev/null 2>/tmp/probe.err
	rc=$?
	case $rc in
	0) modes="$modes $m"; record "lock-mode-$m" ok 0 "$(since $t)" "accepted (ioengine=null probe)" ;;
	2) record "lock-mode-$m" unavailable 2 "$(since $t)" "not available in this build: $(firstline /tmp/probe.err)" ;;
	*) record "lock-mode-$m" fail $rc "$(since $t)" "the null probe failed: $(firstline /tmp/probe.err)" ;;
	esac
done
echo $modes >"$R/modes.txt"

# ---- write-then-verify -------------------------------------------------------

# fio opens a passthrough node without O_DIRECT: a character device refuses it
direct() { [ "$1" = io_uring_cmd ] && echo 0 || echo 1; }

# one rqlock pass: rq TARGET MODE PHASE DEV ENGINE OFFSET SIZE -> sets $rc, $st
rq() {
	tgt=$1 mode=$2 phase=$3 dev=$4 eng=$5 off=$6 size=$7
	dir=$R/runs/$tgt
	mkdir -p "$dir"
	json=$dir/rqlock-$mode-$phase.json
	t=$(now)
	VM_DEV=$dev VM_ENGINE=$eng VM_OFFSET=$off VM_SIZE=$size VM_BS=$BS VM_DEPTH=$DEPTH VM_DIRECT=$(direct $eng) \
		timeout "$STEP_TIMEOUT" rqlock run --lock=$mode --workers 2 --output-format=json \
		--output "$json" /vm/jobs/$phase.fio >"$dir/rqlock-$mode-$phase.out" 2>"$dir/rqlock-$mode-$phase.err"
	rc=$?
	note="$dev $eng offset=$off size=$size"
	case $rc in
	0) st=ok ;;
	2) case $eng in
	   libaio|io_uring_cmd) st=unavailable; note="not available in this build: $(firstline "$dir/rqlock-$mode-$phase.err")" ;;
	   *) st=fail; note="$note: exit 2: $(firstline "$dir/rqlock-$mode-$phase.err")" ;;
	   esac ;;
	1) st=fail; note="$note: $(firstline "$dir/rqlock-$mode-$phase.err")" ;;
	*) st=fail; note="$note: exit $rc (timeout, crash or signal): $(firstline "$dir/rqlock-$mode-$phase.err")" ;;
	esac
	[ $st = ok ] || rm -f "$json"
	record "rqlock:$tgt:$mode:$phase" $st $rc "$(since $t)" "$note"
	printf 'rqlock\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tgt" "$dev" "$eng" "$mode" "$phase" "$off" "$size" \
		"runs/$tgt/rqlock-$mode-$phase.json" "$st" >>"$RUNS"
}

# one fio write-then-verify and read pass: fio_pass TARGET DEV ENGINE OFFSET SIZE
fio_pass() {
	tgt=$1 dev=$2 eng=$3 off=$4 size=$5
	dir=$R/runs/$tgt
	mkdir -p "$dir"
	if ! have fio; then
		record "fio:$tgt" unavailable 127 0 "fio is not in the guest (not installed on the host)"
		return
	fi
	for phase in write read; do
		json=$dir/fio-$phase.json
		extra=""
		[ $phase = write ] && extra="--verify=crc32c --verify_fatal=1"
		t=$(now)
		VM_DEV=$dev VM_ENGINE=$eng VM_OFFSET=$off VM_SIZE=$size VM_BS=$BS VM_DEPTH=$DEPTH VM_DIRECT=$(direct $eng) \
			timeout "$STEP_TIMEOUT" fio --output-format=json --output="$json" $extra /vm/jobs/$phase.fio \
			>"$dir/fio-$phase.out" 2>"$dir/fio-$phase.err"
		rc=$?
		if [ $rc -eq 0 ]; then
			st=ok note="$dev $eng offset=$off size=$size${extra:+ (+verify=crc32c)}"
		else
			st=fail note="$dev $eng: exit $rc: $(firstline "$dir/fio-$phase.err")"
		fi
		record "fio:$tgt:$phase" $st $rc "$(since $t)" "$note"
		printf 'fio\t%s\t%s\t%s\t-\t%s\t%s\t%s\t%s\t%s\n' "$tgt" "$dev" "$eng" "$phase" "$off" "$size" \
			"runs/$tgt/fio-$phase.json" "$st" >>"$RUNS"
	done
}

# full TARGET DEV ENGINE OFFSET SIZE: fio first, then every lock mode's
# write and read (rqlock's stamps are what stays on the disk, and the host
# checks them in the backing file after the VM is gone).  An engine this
# build refuses is tried once, not once per mode.
full() {
	fio_pass "$@"
	for mode in $modes; do
		rq "$1" "$mode" write "$2" "$3" "$4" "$5"
		[ $st = unavailable ] && return 1
		[ $st = ok ] || continue
		rq "$1" "$mode" read "$2" "$3" "$4" "$5"
	done
	return 0
}

# did some rqlock write pass on TARGET succeed?
wrote() { awk -F'\t' -v t="$1" '$1 == "rqlock" && $2 == t && $6 == "write" && $10 == "ok"' "$RUNS" | grep -q .; }

first_mode=${modes# }
first_mode=${first_mode%% *}
first_mode=${first_mode:-global}
[ -n "$modes" ] || record lock-modes fail 1 0 "no lock mode accepted the null probe"

if [ "$VM_NVME" -gt 0 ]; then
	# the block path on the first 8M, passthrough on the next 8M of the same namespace
	full nvme0n1 /dev/nvme0n1 io_uring 0 $REGION
	full ng0n1 /dev/ng0n1 io_uring_cmd $REGION_BYTES $REGION; pt=$?
	# across paths: each path reads what the other wrote
	if [ $pt -eq 0 ] && wrote ng0n1; then
		rq nvme0n1-reads-ng0n1 "$first_mode" read /dev/nvme0n1 io_uring $REGION_BYTES $REGION
		rq ng0n1-reads-nvme0n1 "$first_mode" read /dev/ng0n1 io_uring_cmd 0 $REGION
	fi
	i=2
	while [ $i -le "$VM_NVME" ]; do
		rq nvme0n$i "$first_mode" write /dev/nvme0n$i io_uring 0 $REGION
		[ $st = ok ] && rq nvme0n$i "$first_mode" read /dev/nvme0n$i io_uring 0 $REGION
		i=$((i + 1))
	done
fi
if [ "$VM_SATA" -gt 0 ]; then
	full sda /dev/sda io_uring 0 $REGION
	full sda-libaio /dev/sda libaio $REGION_BYTES $REGION; aio=$?
	if [ $aio -eq 0 ] && wrote sda-libaio; then
		rq sda-reads-libaio "$first_mode" read /dev/sda io_uring $REGION_BYTES $REGION
		rq sda-libaio-reads-io_uring "$first_mode" read /dev/sda libaio 0 $REGION
	fi
	for l in b c d e f; do
		[ -e /dev/sd$l ] || continue
		rq sd$l "$first_mode" write /dev/sd$l io_uring 0 $REGION
		[ $st = ok ] && rq sd$l "$first_mode" read /dev/sd$l io_uring 0 $REGION
	done
fi
if [ "$VM_FLOPPY" -eq 1 ]; then
	# the whole 1.44 MB medium: 360 blocks of 4k
	full fd0 /dev/fd0 io_uring 0 1440k
fi

[ -f "$R/identify/rqlock-devices.json" ] && devices rqlock-devices-after-io

# ---- the checks can fail: a sector moved on purpose must be caught ---------

# Outside every region above (and out of runs.tsv, so the host's stamp check
# does not read it): rqlock writes 1M at 32M, busybox dd copies sector 100 of
# it over sector 7, and the read pass must exit 1 naming that offset.
if [ "$VM_NVME" -gt 0 ] && [ -n "$modes" ]; then
	ctl=33554432
	dir=$R/runs/control
	mkdir -p "$dir"
	t=$(now)
	export VM_DEV=/dev/nvme0n1 VM_ENGINE=io_uring VM_OFFSET=$ctl VM_SIZE=1M VM_BS=$BS VM_DEPTH=$DEPTH VM_DIRECT=1
	timeout "$STEP_TIMEOUT" rqlock run --lock=$first_mode --output-format=json --output "$dir/write.json" \
		/vm/jobs/write.fio >/dev/null 2>"$dir/write.err"
	wrc=$?
	dd if=/dev/nvme0n1 of=/dev/nvme0n1 bs=512 skip=$((ctl / 512 + 100)) seek=$((ctl / 512 + 7)) count=1 \
		conv=notrunc,fsync 2>"$dir/dd.err"
	drc=$?
	timeout "$STEP_TIMEOUT" rqlock run --lock=$first_mode --output-format=json --output "$dir/read.json" \
		/vm/jobs/read.fio >/dev/null 2>"$dir/read.err"
	rrc=$?
	unset VM_DEV VM_ENGINE VM_OFFSET VM_SIZE VM_BS VM_DEPTH VM_DIRECT
	bad=$((ctl + 7 * 512))
	if [ $wrc -ne 0 ] || [ $drc -ne 0 ]; then
		record mismatch-detected fail $wrc "$(since $t)" "set-up failed: write exit $wrc, dd exit $drc"
	elif [ $rrc -eq 1 ] && grep -q "offset $bad" "$dir/read.err"; then
		record mismatch-detected ok $rrc "$(since $t)" "a sector moved on /dev/nvme0n1 fails the read pass: $(firstline "$dir/read.err")"
	else
		record mismatch-detected fail $rrc "$(since $t)" "moved sector at offset $bad not reported (exit $rrc): $(firstline "$dir/read.err")"
	fi
fi

fails=$(awk -F'\t' '$2 == "fail"' "$STEPS" | wc -l)
unav=$(awk -F'\t' '$2 == "unavailable"' "$STEPS" | wc -l)
oks=$(awk -F'\t' '$2 == "ok"' "$STEPS" | wc -l)
echo "rqvm-check: $oks ok, $fails failed, $unav not available in this build"
[ "$fails" -eq 0 ]
