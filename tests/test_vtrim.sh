#!/usr/bin/env bash
# verify/trim end to end (issue 34, item 4): trim_percentage, trim_backlog,
# trim_backlog_batch, trim_verify_zero, as fio 3.40 runs them (fio 3.33
# aborts on a trim in a job without rw=trim... and its batches restart at
# once; engine/vtrim.c says where it differs):
#  - the counts fio's rule gives: a batch of trim_backlog_batch trims
#    (trim_backlog without it) each time trim_backlog written blocks wait
#    to be read back; the trims in number_ios, not in size; every trimmed
#    block read back as zeros, or not at all with trim_verify_zero=0;
#  - trim_percentage's share within 4 sigma of the binomial's mean;
#  - a file where every written block was trimmed reads zeros afterwards;
#  - every lock mode, at depth, on RAM and a file, verification passing;
#  - no trims without trim_backlog, verify= or do_verify (as fio);
#  - beside fio 3.33 on a loop device (root), where fio 3.33 runs them
#    (rw=trimwrite, randtrimwrite): the same reads, writes and trims;
#  - bad values, --readonly and a device without discard: one line, exit 2.
. "$(dirname "$0")/lib.sh"
need python3
f="$TMP/data"
truncate -s 8m "$f"

# run NAME ARGS...: an rqlock job into $TMP/NAME.json; prints "reads writes trims error"
run() {
	local name=$1
	shift
	"$RQLOCK" run --name=t --bs=4k --verify=crc32c "$@" --output-format=json --output "$TMP/$name.json" \
		2>"$TMP/$name.err" || { cat "$TMP/$name.err" >&2; fail "$name: exit $?"; }
	[ -s "$TMP/$name.err" ] && { cat "$TMP/$name.err" >&2; fail "$name: stderr not empty"; }
	json "$TMP/$name.json" "' '.join(str(j['jobs'][0][d]['total_ios']) for d in ('read', 'write', 'trim')) + ' ' + str(j['jobs'][0]['error'])"
}
expect() {	# expect NAME GOT WANT
	[ "$2" = "$3" ] || fail "$1: reads writes trims error: $2, expected $3"
	echo "$1: $2"
}

# ---- fio 3.40's rule, deterministic with every write marked ----
for rw in write randwrite; do
	expect "$rw backlog=1" "$(run a --filename="$f" --size=1m --rw=$rw --trim_percentage=100 --trim_backlog=1)" "256 256 256 0"
	# every 16 blocks written, a batch of 4: 256 / 16 * 4
	expect "$rw backlog=16 batch=4" "$(run b --filename="$f" --size=1m --rw=$rw --trim_percentage=100 \
		--trim_backlog=16 --trim_backlog_batch=4)" "256 256 64 0"
	# batches of 2 when 5 | pieces waiting: 51 whole backlogs
	expect "$rw backlog=5 batch=2" "$(run c --filename="$f" --size=1m --rw=$rw --trim_percentage=100 \
		--trim_backlog=5 --trim_backlog_batch=2)" "256 256 102 0"
done
# fio's t/verify-trim.py test 100: 64 I/Os are 32 writes and their 32 trims
expect "number_ios=64" "$(run d --filename="$f" --size=1m --rw=write --trim_percentage=100 --trim_backlog=1 \
	--number_ios=64)" "32 32 32 0"
# verify_backlog reads take pieces off the list before their batch comes
expect "verify_backlog=32" "$(run e --filename="$f" --size=1m --rw=write --trim_percentage=100 --trim_backlog=8 \
	--verify_backlog=32 --trim_backlog_batch=2)" "256 256 48 0"
# trim_verify_zero=0: a trimmed block is not read back
got=$(run z --filename="$f" --size=1m --rw=write --trim_percentage=100 --trim_backlog=7 --trim_backlog_batch=3 \
	--trim_verify_zero=0)
read -r r w t e <<<"$got"
[ "$e" = 0 ] && [ "$w" = 256 ] && [ "$t" -gt 100 ] && [ $((r + t)) = 256 ] \
	|| fail "trim_verify_zero=0: reads writes trims error $got: the reads are not the blocks left untrimmed"
echo "trim_verify_zero=0: $got"

# ---- the share: within 4 sigma of the binomial's mean, fio's t/verify-trim.py within 10 % ----
for pct in 10 50; do
	got=$(run p --filename="$f" --size=8m --rw=randwrite --trim_percentage=$pct --trim_backlog=4)
	python3 - "$pct" $got <<'PY' || fail "trim_percentage=$pct: $got"
import math, sys
pct, r, w, t, e = (int(x) for x in sys.argv[1:])
mean, sd = w * pct / 100, math.sqrt(w * pct / 100 * (1 - pct / 100))
assert e == 0 and r == w == 2048, (r, w, e)
assert abs(t - mean) <= 4 * sd, f"{t} trims, {mean:.0f} +- {4 * sd:.0f} expected"
PY
	echo "trim_percentage=$pct: $got"
done
# fio's t/verify-trim.py test 102 (fio 3.42 on a loop device: 43 reads, 43 writes, 22 trims)
got=$(run q --filename="$f" --size=1m --rw=write --trim_percentage=50 --trim_backlog=1 --number_ios=64)
python3 - $got <<'PY' || fail "number_ios=64, 50 %: $got"
r, w, t, e = (int(x) for x in __import__('sys').argv[1:])
assert e == 0 and r == w and abs(w / 2 - t) <= 0.1 * w / 2 + 4, (r, w, t)
assert 64 <= w + t <= 65, (w, t)
PY
echo "number_ios=64, 50 %: $got"

# ---- the blocks are gone: a file whose every written block was trimmed reads zeros ----
head -c $((1 << 20)) /dev/urandom >"$TMP/g"
expect "file, all trimmed" "$(run g --filename="$TMP/g" --size=1m --rw=write --trim_percentage=100 --trim_backlog=1)" \
	"256 256 256 0"
cmp -s -n $((1 << 20)) "$TMP/g" /dev/zero || fail "the file does not read zeros after its blocks were trimmed"
echo "the trimmed file reads zeros"

# ---- no trims: without trim_backlog (fio only counts the marks), without verify=, with do_verify=0 ----
expect "no trim_backlog" "$(run n1 --filename="$f" --size=1m --rw=write --trim_percentage=50)" "256 256 0 0"
expect "do_verify=0" "$(run n2 --filename="$f" --size=1m --rw=write --trim_percentage=50 --trim_backlog=1 \
	--do_verify=0)" "0 256 0 0"

# ---- every lock mode, at depth, on RAM and a file: verification passes, the counts add up ----
modes=$(rq_modes)
[ -n "$modes" ] || fail "no lock modes listed"
for mode in $modes; do
	for dev in @ram0 "$f"; do
		got=$(run m --lock="$mode" --workers=2 --filename="$dev" --size=4m --rw=randwrite --iodepth=8 \
			--trim_percentage=40 --trim_backlog=8 --trim_backlog_batch=3)
		read -r r w t e <<<"$got"
		[ "$e" = 0 ] && [ "$r" = 1024 ] && [ "$w" = 1024 ] && [ "$t" -gt 200 ] \
			|| fail "$mode $dev: reads writes trims error $got"
		ok=$(json "$TMP/m.json" "j['rqlock']['bios_submitted'] == j['rqlock']['bios_completed']")
		[ "$ok" = True ] || fail "$mode $dev: not exactly once"
	done
	echo "$mode: RAM and file at depth 8 verify their trims"
done

# ---- beside fio 3.33, where it runs verify/trim: trimwrite patterns on a loop device ----
if command -v fio >/dev/null && fio --version | grep -q '^fio-3\.33' && [ "$(id -u)" -eq 0 ] &&
   command -v losetup >/dev/null && truncate -s 8m "$TMP/back.img" &&
   loop=$(losetup --find --show "$TMP/back.img" 2>/dev/null); then
	cleanup_hooks+=("losetup -d $loop")
	if [ "$(cat /sys/block/"${loop#/dev/}"/queue/discard_max_bytes 2>/dev/null)" -gt 0 ] 2>/dev/null; then
		for args in "--rw=trimwrite --trim_percentage=100 --trim_backlog=1" \
			    "--rw=trimwrite --trim_percentage=100 --trim_backlog=16" \
			    "--rw=randtrimwrite --trim_percentage=100 --trim_backlog=8" \
			    "--rw=trimwrite --trim_percentage=50 --trim_backlog=8"; do
			# shellcheck disable=SC2086
			fio --name=t --filename="$loop" --bs=4k --size=4m --verify=crc32c $args --output-format=json \
				--output="$TMP/fio.json" >/dev/null 2>"$TMP/fio.err" || { cat "$TMP/fio.err"; fail "fio $args"; }
			want=$(json "$TMP/fio.json" "' '.join(str(j['jobs'][0][d]['total_ios']) for d in ('read', 'write', 'trim')) + ' ' + str(j['jobs'][0]['error'])")
			# shellcheck disable=SC2086
			got=$(run l --filename="$loop" --size=4m $args)
			python3 - "$args" $got $want <<'PY' || fail "beside fio 3.33, $args: rqlock $got, fio $want"
import math, sys
args = sys.argv[1]
a, b = [int(x) for x in sys.argv[2:6]], [int(x) for x in sys.argv[6:10]]
if 'percentage=100' in args:
    assert a == b, (a, b)
else:
    # each marks half of its 1024 writes on its own stream: sigma of the difference
    assert a[:2] == b[:2] and a[3] == b[3] == 0 and abs(a[2] - b[2]) <= 4 * math.sqrt(2 * 1024 * 0.25), (a, b)
PY
			echo "beside fio 3.33, $args: rqlock $got, fio $want"
		done
	else
		echo "fio 3.33: skipped, $loop takes no discard"
	fi
else
	echo "fio 3.33: skipped (needs fio 3.33, root and a loop device)"
fi

# ---- bad input: one line naming the file, line and option, exit 2, nothing run ----
bad() {	# bad WHAT [--readonly] TEXT
	local what=$1 flag=
	shift
	[ "$1" = --readonly ] && { flag=--readonly; shift; }
	printf '%b' "$*" >"$TMP/bad.fio"
	"$RQLOCK" run $flag "$TMP/bad.fio" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	[ $rc = 2 ] || { cat "$TMP/bad.err"; fail "$what: exit $rc, not 2"; }
	[ "$(wc -l <"$TMP/bad.err")" = 1 ] && grep -q "bad.fio:[0-9]" "$TMP/bad.err" \
		|| { cat "$TMP/bad.err"; fail "$what: not one line naming the file and line"; }
	[ -s "$TMP/bad.out" ] && fail "$what: something was written"
	echo "$what: $(cat "$TMP/bad.err")"
}
job="[t]\nfilename=$f\nsize=1m\nrw=write\nverify=crc32c\n"
bad "trim_percentage=101" "${job}trim_percentage=101\ntrim_backlog=1\n"
bad "trim_backlog=x" "${job}trim_percentage=10\ntrim_backlog=x\n"
bad "trim_backlog_batch=-1" "${job}trim_percentage=10\ntrim_backlog=1\ntrim_backlog_batch=-1\n"
bad "trim_verify_zero=2" "${job}trim_percentage=10\ntrim_backlog=1\ntrim_verify_zero=2\n"
bad "--readonly" --readonly "[t]\nfilename=$f\nsize=1m\nrw=read\nverify=crc32c\ntrim_percentage=10\ntrim_backlog=1\n"
bad "a floppy takes no discard" "[t]\nfilename=@floppy0\nsize=64k\nrw=write\nverify=crc32c\ntrim_percentage=10\ntrim_backlog=1\n"
echo PASS
