#!/usr/bin/env bash
# rqlock's lock logs (--write-lock-log): a wait and a hold log per lock
# class in fio's line format (time, mean ns, 0, samples, 0), lines only
# for intervals with samples, times rising; fio2gnuplot reads them when
# it is installed.  Bad prefixes and intervals: one line, exit 2.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/l.fio" <<'JOB'
[l]
filename=@null0
rw=randread
iodepth=4
numjobs=2
time_based
runtime=1
JOB
"$RQLOCK" run --workers=2 --lock=global --write-lock-log="$TMP/lk" --lock-log-msec=100 "$TMP/l.fio" \
	>/dev/null 2>"$TMP/err" || fail "rqlock failed: $(cat "$TMP/err")"
for f in lk_io_request_lock_lockwait.log lk_io_request_lock_lockhold.log; do
	[ -f "$TMP/$f" ] || fail "no $f: $(ls "$TMP")"
	awk -F', ' 'NF != 5 || $3 != 0 || $5 != 0 || $4 < 1 || $2 < 0 || $1 < last { print FILENAME ": line " NR ": " $0; exit 1 } { last = $1 }' \
		"$TMP/$f" || fail "$f: not time, mean, 0, samples, 0 with rising times"
done
# every I/O takes io_request_lock; 1 in 64 acquisitions is timed for the hold log
[ -s "$TMP/lk_io_request_lock_lockhold.log" ] || fail "no hold samples in a second of I/O"
# more than one interval in a second of 100 ms intervals
[ "$(wc -l <"$TMP/lk_io_request_lock_lockhold.log")" -ge 2 ] || fail "one hold interval only"
if command -v fio2gnuplot >/dev/null && command -v gnuplot >/dev/null; then
	(cd "$TMP" && timeout 120 fio2gnuplot -p 'lk_io_request_lock_lockhold.log' -g >g.out 2>&1) ||
		fail "fio2gnuplot: $(tail -3 "$TMP/g.out")"
	[ -s "$TMP/lk_io_request_lock_lockhold-2Draw.png" ] || fail "fio2gnuplot rendered nothing: $(tail -3 "$TMP/g.out")"
fi
for a in --write-lock-log=/nonexistent/x --write-lock-log= --lock-log-msec=5 --lock-log-msec=x; do
	"$RQLOCK" run "$a" "$TMP/l.fio" >"$TMP/o" 2>"$TMP/e"
	[ $? -eq 2 ] || fail "$a: expected exit 2"
	[ "$(wc -l <"$TMP/e")" -eq 1 ] && [ ! -s "$TMP/o" ] || fail "$a: expected one line on stderr, nothing on stdout"
done
echo "ok: lock wait and hold logs per class in fio's format"
