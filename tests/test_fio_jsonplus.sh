#!/usr/bin/env bash
# json+ through fio's own tool: Debian's fio_jsonplus_clat2csv reads
# rqlock's json+ file, validates its CSV against the "bins" (--validate),
# and the percentiles the CSV's cumulative counts give - fio's rule, the
# first bucket whose running count reaches p% of the samples - must be the
# ones rqlock printed, for every latency that has percentiles, and each
# such latency's bins hold every one of its samples.
# Skips (77) without python3 or fio_jsonplus_clat2csv.
. "$(dirname "$0")/lib.sh"
need python3
tool=$(command -v fio_jsonplus_clat2csv || true)
if [ -z "$tool" ] && command -v dpkg >/dev/null; then
	tool=$(dpkg -L fio 2>/dev/null | grep '/fio_jsonplus_clat2csv$' | head -1)
fi
[ -n "$tool" ] && [ -x "$tool" ] || skip "fio_jsonplus_clat2csv (Debian's fio package) is not installed"
python3 -c 'import six' 2>/dev/null || skip "fio_jsonplus_clat2csv needs python3's six module"

cat >"$TMP/j.fio" <<'JOB'
[global]
size=8m
bs=4k
lat_percentiles=1
slat_percentiles=1
percentile_list=1:25:50:75:90:99:99.9
[timed]
filename=@null0,delay_us=20
rw=randrw
iodepth=8
[inline]
ioengine=null
rw=randread
iodepth=4
JOB
"$RQLOCK" run --workers 2 --output-format=json+ --output "$TMP/out.json" "$TMP/j.fio" 2>"$TMP/err" \
	|| fail "rqlock run failed: $(cat "$TMP/err")"
(cd "$TMP" && "$tool" out.json csv.csv >"$TMP/gen.txt" 2>&1) || fail "fio_jsonplus_clat2csv failed: $(cat "$TMP/gen.txt")"
(cd "$TMP" && "$tool" out.json csv.csv --validate >"$TMP/val.txt" 2>&1) \
	|| fail "fio_jsonplus_clat2csv --validate failed: $(cat "$TMP/val.txt")"
[ "$(grep -c validated "$TMP/val.txt")" -eq 2 ] || fail "not every job validated: $(cat "$TMP/val.txt")"

python3 - "$TMP/out.json" "$TMP" <<'PY' || fail "percentiles from fio's CSV differ from rqlock's"
import csv, json, os, sys
d = json.load(open(sys.argv[1]))
bad, checked = [], 0
for n, job in enumerate(d['jobs']):
    rows = list(csv.reader(open(os.path.join(sys.argv[2], 'csv_job%d.csv' % n))))
    head = [c.strip() for c in rows[0]]
    for ddir in ('read', 'write', 'trim'):
        for lat in ('slat_ns', 'clat_ns', 'lat_ns'):
            l = job[ddir][lat]
            if 'percentile' not in l:
                continue
            # each latency asked for keeps its own histogram: one count per I/O
            if sum(l['bins'].values()) != l['N']:
                bad.append('%s %s %s: bins hold %d of %d samples'
                           % (job['jobname'], ddir, lat, sum(l['bins'].values()), l['N']))
            col = head.index('%s_%s_cumulative' % (ddir, lat))
            pts = [(int(r[0]), int(r[col])) for r in rows[1:] if len(r) > col and r[col].strip()]
            for key, want in l['percentile'].items():
                p = float(key)
                got = next((v for v, cum in pts if cum >= p / 100.0 * l['N']), pts[-1][0])
                checked += 1
                if got != want:
                    bad.append('%s %s %s p%s: csv %d, rqlock %d' % (job['jobname'], ddir, lat, key, got, want))
for b in bad:
    print(b)
print('%d percentiles compared' % checked)
sys.exit(1 if bad or not checked else 0)
PY
echo "test_fio_jsonplus: ok"
