#!/usr/bin/env bash
# fio's logs (results/iolog.c): the same job file through fio 3.33 and
# through rqlock must leave log files of the same names with the same
# columns (time, value, ddir, bs[, offset], prio; clat_hist: time, ddir,
# bs and 1856 buckets); rqlock's lines must hold what they say (bs of
# the I/O, ddir 0 or 1, iops 1, lat >= clat, averaged lines bs 0); and
# fio's own readers must read them: fio2gnuplot renders the bw and iops
# logs, fio_generate_plots the latency logs, fiologparser_hist.py the
# histogram log.  Skips (77) without fio, gnuplot, or (last, after every
# other check passed) the Python modules fiologparser_hist.py imports.
. "$(dirname "$0")/lib.sh"
need fio
need gnuplot
need fio2gnuplot
need fio_generate_plots

truncate -s 8m "$TMP/data"
# rate_iops bounds the per-I/O logs; io_uring so that both tools measure slat
cat >"$TMP/logs.fio" <<JOB
[global]
filename=$TMP/data
ioengine=io_uring
rw=randrw
bs=4k
size=8m
iodepth=2
time_based
runtime=1
rate_iops=1500
[a]
write_lat_log
write_bw_log=bwx
write_iops_log
write_hist_log
log_hist_msec=200
[b]
numjobs=2
write_bw_log
write_iops_log
write_lat_log=lb
log_avg_msec=100
log_offset=1
log_prio=1
log_max_value=1
per_job_logs=0
[c]
write_lat_log=co
log_offset=1
JOB
mkdir "$TMP/fio" "$TMP/rq"
(cd "$TMP/fio" && fio --output=/dev/null "$TMP/logs.fio" >/dev/null 2>&1) || fail "fio failed"
(cd "$TMP/rq" && "$RQLOCK" run --output /dev/null "$TMP/logs.fio" 2>"$TMP/err") ||
	fail "rqlock failed: $(cat "$TMP/err")"

# rqlock's own lat_intended logs (rate-limited jobs) have no fio counterpart
names() { (cd "$1" && ls -1 -- *.log | grep -v '_lat_intended\.' | sort); }
[ "$(names "$TMP/fio")" = "$(names "$TMP/rq")" ] ||
	fail "log names differ: fio: $(names "$TMP/fio" | tr '\n' ' '); rqlock: $(names "$TMP/rq" | tr '\n' ' ')"
[ "$(names "$TMP/rq" | wc -l)" -eq 14 ] || fail "expected 14 logs, rqlock wrote: $(names "$TMP/rq" | tr '\n' ' ')"

# the columns of every line, and that a log fio fills rqlock fills too
cols() { awk -F', ' '{ print NF }' "$1" | sort -u | tr '\n' ' '; }
for f in $(names "$TMP/rq"); do
	[ -s "$TMP/rq/$f" ] || fail "$f: rqlock wrote no lines"
	[ -s "$TMP/fio/$f" ] || continue
	[ "$(cols "$TMP/fio/$f")" = "$(cols "$TMP/rq/$f")" ] ||
		fail "$f: columns per line: fio $(cols "$TMP/fio/$f"), rqlock $(cols "$TMP/rq/$f")"
	grep -qvE '^[0-9]+(, (-?[0-9]+|0x[0-9a-f]{4}))+$' "$TMP/rq/$f" &&
		fail "$f: a line is not fio's format: $(grep -vE '^[0-9]+(, (-?[0-9]+|0x[0-9a-f]{4}))+$' "$TMP/rq/$f" | head -1 | cut -c1-80)"
done
[ "$(cols "$TMP/rq/a_clat_hist.1.log")" = "1859 " ] ||
	fail "clat_hist: expected time, ddir, bs and 1856 buckets per line"

cd "$TMP/rq" || fail "cd"
# per-I/O lines: the I/O's bs, a direction, iops 1; times never go back in a clone's file
for f in a_lat.1.log a_slat.1.log a_clat.1.log a_iops.1.log bwx_bw.1.log co_lat.4.log; do
	awk -F', ' -v f="$f" '
		$3 != 0 && $3 != 1 { print f ": ddir " $3; exit 1 }
		$4 != 4096 { print f ": bs " $4; exit 1 }
		$1 < last { print f ": time goes back at line " NR; exit 1 }
		{ last = $1 }' "$f" || fail "per-I/O log lines"
done
awk -F', ' '$2 != 1 { exit 1 }' a_iops.1.log || fail "iops log: a per-I/O value other than 1"
# lat_intended (rate_iops): a line per I/O as lat, measured from the due time
[ -s a_lat_intended.1.log ] && [ "$(wc -l <a_lat_intended.1.log)" -eq "$(wc -l <a_lat.1.log)" ] ||
	fail "a_lat_intended.1.log: not a line per I/O of a_lat.1.log"
awk -F', ' '$5 !~ /^[0-9]+$/ || $5 % 4096 { exit 1 }' co_lat.4.log || fail "log_offset: offsets not at bs boundaries"
paste -d, a_lat.1.log a_clat.1.log | awk -F', *' '$2 < $7 { exit 1 }' || fail "a lat line below its clat line"
# averaged lines (log_avg_msec): bs and offset 0, fio's 0x%04x priority
awk -F', ' '$4 != 0 || $5 != 0 || $6 != "0x0000" { exit 1 }' lb_lat.log b_bw.log b_iops.log ||
	fail "averaged lines carry a bs, an offset, or no 0x%04x priority"
# two clones share lb_lat.log: about twice the windows of one second
n=$(wc -l <lb_lat.log)
[ "$n" -ge 8 ] || fail "lb_lat.log: $n lines for two clones x 1 s in 100 ms windows"

# fio2gnuplot: the bandwidth and IOPS logs become gnuplot traces and PNGs
mkdir g && cp b_bw.log b_iops.log bwx_bw.1.log g/ && cd g || fail "cd"
timeout 120 fio2gnuplot -b -g >../g.out 2>&1 || fail "fio2gnuplot -b: $(tail -3 ../g.out)"
timeout 120 fio2gnuplot -i -g >>../g.out 2>&1 || fail "fio2gnuplot -i: $(tail -3 ../g.out)"
timeout 120 fio2gnuplot -p 'bwx_bw.1.log' -g >>../g.out 2>&1 || fail "fio2gnuplot -p: $(tail -3 ../g.out)"
for p in b_bw-2Draw.png b_iops-2Draw.png bwx_bw.1-2Draw.png; do
	[ -s "$p" ] || fail "fio2gnuplot rendered no $p: $(tail -3 ../g.out)"
done
cd .. || fail "cd"
# fio_generate_plots: the latency logs as SVG
mkdir p && cp lb_lat.log lb_clat.log lb_slat.log b_bw.log b_iops.log p/ && cd p || fail "cd"
timeout 120 fio_generate_plots rq >../p.out 2>&1 || fail "fio_generate_plots: $(tail -3 ../p.out)"
for s in rq-lat.svg rq-clat.svg rq-bw.svg rq-iops.svg; do
	[ -s "$s" ] || fail "fio_generate_plots made no $s: $(tail -3 ../p.out)"
done
cd .. || fail "cd"

# the histogram log: its counts are the I/Os of its windows
total=$(awk -F', ' '{ for (i = 4; i <= NF; i++) s += $i } END { print s + 0 }' a_clat_hist.1.log)
ios=$(wc -l <a_clat.1.log)
[ "$total" -gt 0 ] && [ "$total" -le "$ios" ] || fail "clat_hist counts $total I/Os, the clat log $ios"

# fiologparser_hist.py ships (gzipped) with Debian's fio
parser=
for p in /usr/share/doc/fio/fiologparser_hist.py /usr/share/doc/fio/fiologparser_hist.py.gz \
	 "$(command -v fiologparser_hist.py 2>/dev/null)"; do
	[ -n "$p" ] && [ -f "$p" ] || continue
	case "$p" in
	*.gz) zcat "$p" >"$TMP/fiologparser_hist.py" ;;
	*) cp "$p" "$TMP/fiologparser_hist.py" ;;
	esac
	parser=$TMP/fiologparser_hist.py
	break
done
[ -n "$parser" ] || skip "fiologparser_hist.py not found (every other check passed)"
py=
for p in /usr/bin/python3 python3; do
	"$p" -c 'import numpy, pandas' 2>/dev/null && { py=$p; break; }
done
[ -n "$py" ] || skip "no python3 with numpy and pandas for fiologparser_hist.py (every other check passed)"
timeout 120 "$py" "$parser" a_clat_hist.1.log >"$TMP/hist.out" 2>&1 || fail "fiologparser_hist.py: $(tail -3 "$TMP/hist.out")"
head -1 "$TMP/hist.out" | grep -q '^end-time, samples, min, avg, median' || fail "fiologparser_hist.py: $(head -3 "$TMP/hist.out")"
parsed=$(awk -F', ' 'NR > 1 { s += $2 } END { print s + 0 }' "$TMP/hist.out")
[ "$parsed" -gt 0 ] || fail "fiologparser_hist.py found no samples: $(head -3 "$TMP/hist.out")"
echo "ok: $(names "$TMP/rq" | wc -l) logs as fio names and lays them out; fio2gnuplot, fio_generate_plots and fiologparser_hist.py ($parsed samples) read them"
