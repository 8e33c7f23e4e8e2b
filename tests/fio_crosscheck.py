#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
fio_crosscheck.py RQLOCK CORPUS_DIR - the job-file parser against fio itself.

For every CORPUS_DIR/*.fio, fio 3.33 resolves the file (fio --parse-only
--debug=parse prints, per job and option, the value it parsed: "out=" for
numbers, bools and times, the text for strings) and rqlock resolves it
(rqlock run --showcmd prints every option a job set with its resolved
value).  Per job, in order, every option fio handled must be in rqlock's
line with the same value:

  numbers     fio's out= per direction (bs=R,W and rate_iops=R,W follow fio's
              rule: the last value given also stands for the directions after
              it, an empty part keeps the direction); times in microseconds;
              size=N% as fio encodes it (2^64-1-N)
  floats      percentile_list element by element
  strings     rw (name and :N), ioengine, filename, description, wait_for, name,
              the enum options (fio's synonyms: readwrite=rw, 1=mixed, ...),
              random_distribution (fio's defaults for a missing parameter),
              cpus_allowed as a set of CPUs
  pairs       rwmixread/rwmixwrite and direct/buffered: the later one written wins

Skipped, and counted: options fio prints no resolved value for (bssplit,
bsrange, verify_pattern: rqlock's resolution of those is pinned by
tests/test_parser.c); options rqlock warned about (they cannot change its
result); options rqlock accepts only at fio's default (checked: fio's value
must then be that default, read from fio's own "filling default options").
The other way round, rqlock may not print an option fio did not handle,
save ioengine (rqlock's default is io_uring, fio's psync) and the stonewall
fio puts before a second job file.

Exit 0 all equal, 1 a difference (printed), 77 fio missing.
"""
import copy
import os
import re
import shlex
import shutil
import subprocess
import sys

DEBUG_LINE = re.compile(r'^parse\s+\d+\s+(.*)$')
NUMERIC_TYPES = {'OPT_INT', 'OPT_ULL', 'OPT_STR_VAL', 'OPT_STR_VAL_TIME', 'OPT_STR_VAL_ZONE',
                 'OPT_BOOL', 'OPT_STR_SET'}
TIME_OPTS = {'runtime', 'ramp_time', 'thinktime', 'thinktime_spin', 'startdelay',
             'latency_target', 'latency_window', 'ss_dur', 'ss_ramp', 'steadystate_duration',
             'steadystate_ramp_time'}
TWO_WAY = {'bs', 'rate_iops', 'rate', 'ba'}  # R,W options rqlock keeps per direction
NO_RESOLVED = {'bssplit', 'bsrange', 'verify_pattern'}
BARE_NAMES = {'write_bw_log', 'write_lat_log', 'write_iops_log', 'write_hist_log'}
SYNONYMS = {
    'rw': {'readwrite': 'rw'},
    'unified_rw_reporting': {'0': 'none', '1': 'mixed', '2': 'both'},
    'continue_on_error': {'0': 'none', '1': 'all'},
    'verify': {'crc32c-intel': 'crc32c'},
}
DIST_DEFAULT = {'zipf': 1.1, 'pareto': 0.2, 'normal': 0.0}


def fio_debug(args, env):
    p = subprocess.run(['fio', '--parse-only', '--debug=parse'] + args, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def parse_fio(text):
    """
    [(name, {opt: {'ptr', 'parts': [(type, ret, out)], 'seq'}})] in job order.

    fio prints a section's option lines as it reads them, then, when the
    next section starts, "handle_option" for each as it applies them.  It
    also prints the defaults it fills: for a new job file ("filling default
    options", skipped whole) and for an ioengine's own options ("init
    options", then "filling default options": there only the options the
    section wrote count).  "Parsing ini file" after an include line is the
    included file, not a new job file.
    """
    jobs, glob, cur, seq, last = [], {}, None, 0, None
    defaults, engine_defaults, prev, raw_keys, collecting = False, False, '', set(), False
    for raw in text.splitlines():
        m = DEBUG_LINE.match(raw)
        if not m:
            continue
        msg = m.group(1).strip()
        if not msg:
            continue
        if msg.startswith('Parsing ini file'):
            if not prev.startswith('include'):
                glob, cur, defaults = {}, None, False
            prev = msg
            continue
        if msg == 'init options':
            engine_defaults = True
        elif msg == 'filling default options':
            defaults = not engine_defaults
        prev = msg
        m = re.match(r'Parsing section \[(.*)\]$', msg)
        if m:
            defaults = engine_defaults = False
            raw_keys, collecting = set(), True
            name = m.group(1)
            if name.startswith('global'):
                cur = glob
            else:
                jobs.append([name, copy.deepcopy(glob), glob.get('name', {}).get('seq')])
                cur = jobs[-1][1]
            continue
        if collecting:
            k = re.match(r'^([A-Za-z0-9_-]+)(=.*)?$', msg)
            if k and not msg.startswith('handle_option'):
                raw_keys.add(k.group(1))
        if defaults or cur is None:
            continue
        m = re.match(r'zone ddir (\d+) \(nr=\d+\):$', msg)
        if m and last is not None:
            # random_distribution=zoned: fio's resolved zones, per direction
            zdir = int(m.group(1))
            last.setdefault('zones', {})[zdir] = []
            continue
        m = re.match(r'^\d+: (\d+/\d+)$', msg)
        if m and last is not None and 'zones' in last:
            last['zones'][zdir].append(m.group(1))
            continue
        m = re.match(r'handle_option=([^,]+), ptr=(.*)$', msg)
        if m:
            collecting = False
            if engine_defaults and m.group(1) not in raw_keys:
                last = None
                continue
            seq += 1
            last = {'ptr': m.group(2), 'parts': [], 'seq': seq}
            cur[m.group(1)] = last
            continue
        if msg.startswith('__handle_option') and last is None:
            continue
        m = re.match(r'__handle_option=([^,]+), type=(\S+), ptr=(.*)$', msg)
        if m and last is not None:
            last['parts'].append([m.group(2), None, None])
            continue
        m = re.match(r'(?:ret=(-?\d+), )?out=(\S+)$', msg)
        if m and last is not None and last['parts']:
            last['parts'][-1][1] = int(m.group(1) or 0)
            last['parts'][-1][2] = m.group(2)
    for job in jobs:
        # name= renames a job only in its own section: fio keeps the section
        # name when the name comes from [global]
        if 'name' in job[1] and job[1]['name']['seq'] != job[2]:
            job[0] = job[1]['name']['ptr']
        fixup(job[1])
    return [job[:2] for job in jobs]


def set_out(fo, opt, value):
    """Replace what fio parsed for @opt with the value its fix-ups give it."""
    rec = fo[opt]
    rec['parts'] = [[rec['parts'][0][0] if rec['parts'] else 'OPT_INT', 0, str(value)]]


def num(fo, opt, default):
    if opt not in fo or not fo[opt]['parts'] or fo[opt]['parts'][0][2] is None:
        return default
    return int(fo[opt]['parts'][0][2])


def fixup(fo):
    """
    fio's fixup_options() (init.c), which runs after parsing and which
    --debug=parse does not show: the resolved values rqlock prints are the
    fixed-up ones.  Only options the job handled are touched.
    """
    depth = num(fo, 'iodepth', 1)
    if 'iodepth_batch' in fo:
        b = num(fo, 'iodepth_batch', 1)
        if b == 0 or b > depth:
            set_out(fo, 'iodepth_batch', depth)
    if 'iodepth_batch_complete_max' in fo:
        lo = num(fo, 'iodepth_batch_complete_min', 1)
        if num(fo, 'iodepth_batch_complete_max', 0) < lo:
            set_out(fo, 'iodepth_batch_complete_max', lo)
    if 'thinktime_spin' in fo and num(fo, 'thinktime_spin', 0) > num(fo, 'thinktime', 0):
        set_out(fo, 'thinktime_spin', num(fo, 'thinktime', 0))
    if 'time_based' in fo and not num(fo, 'runtime', 0):
        set_out(fo, 'time_based', 0)
    if 'randrepeat' in fo and 'randseed' in fo:
        set_out(fo, 'randrepeat', 0)
    rd = fo.get('random_distribution')
    if 'norandommap' in fo and rd and not rd['ptr'].startswith('random'):
        set_out(fo, 'norandommap', 1)


def fio_defaults(tmpdir):
    """fio's defaults, as it fills them for a second job file: {opt: ptr}."""
    a, b = os.path.join(tmpdir, 'a.fio'), os.path.join(tmpdir, 'b.fio')
    for f in (a, b):
        with open(f, 'w') as fp:
            fp.write('[j]\nioengine=null\nsize=1m\n')
    _, text = fio_debug([a, b], os.environ)
    out, on = {}, False
    for raw in text.splitlines():
        m = DEBUG_LINE.match(raw)
        if not m:
            continue
        msg = m.group(1).strip()
        if msg == 'filling default options':
            on = True
        elif msg.startswith('Parsing'):
            on = False
        elif on:
            m = re.match(r'handle_option=([^,]+), ptr=(.*)$', msg)
            if m:
                out.setdefault(m.group(1), m.group(2))
    return out


def parse_rq(text):
    """[(name, {opt: value})] from rqlock's --showcmd line."""
    words = shlex.split(text.replace('\\\n', ' '))
    jobs = []
    for w in words[1:]:
        if not w.startswith('--'):
            continue
        k, eq, v = w[2:].partition('=')
        if not eq:
            v = '1'
        if k == 'name':
            jobs.append([v, {}])
        elif jobs:
            jobs[-1][1][k] = v
    return jobs


def rq_time_us(v):
    m = re.match(r'^(\d+)(us|ms|s|m|h|d)?$', v)
    mult = {'us': 1, 'ms': 1000, 's': 10**6, 'm': 60 * 10**6, 'h': 3600 * 10**6,
            'd': 86400 * 10**6, None: 10**6}
    return int(m.group(1)) * mult[m.group(2)]


def rq_number(opt, v):
    if v.startswith('-'):
        return (1 << 64) + int(v)         # fio prints a negative int as unsigned
    if v.endswith('%'):
        return (1 << 64) - 1 - int(v[:-1])
    if opt in TIME_OPTS:
        return rq_time_us(v) if opt in ('runtime', 'ramp_time') or not v.isdigit() else int(v)
    if v.startswith('0x'):
        return int(v, 16)
    return int(v)


def fio_dirs(rec):
    """fio's per-direction values of a numeric option: [R, W] (None: not set here)."""
    parts = rec['parts']
    vals = [None, None, None]
    for i, (typ, ret, out) in enumerate(parts):
        if ret != 0 or out is None:
            continue
        if i < 3:
            vals[i] = int(out)
        if i == len(parts) - 1:           # the last value stands for the rest
            for k in range(i + 1, 3):
                vals[k] = int(out)
    return vals[:2]


def cpus(s):
    out = set()
    for part in s.split(','):
        if not part:
            continue
        a, _, b = part.partition('-')
        out.update(range(int(a), int(b or a) + 1))
    return out


def later(rec_a, rec_b):
    if rec_a is None:
        return 'b'
    if rec_b is None:
        return 'a'
    return 'a' if rec_a['seq'] > rec_b['seq'] else 'b'


def compare(fname, fjobs, rjobs, warned, defaults, multi):
    bad, nr, skipped = [], 0, {}

    def skip(why):
        skipped[why] = skipped.get(why, 0) + 1

    if [j[0] for j in fjobs] != [j[0] for j in rjobs]:
        return ['%s: jobs differ: fio %r, rqlock %r' % (fname, [j[0] for j in fjobs],
                                                         [j[0] for j in rjobs])], 0, skipped
    for (name, fo), (_, ro) in zip(fjobs, rjobs):
        where = '%s [%s]' % (fname, name)
        for opt, rec in fo.items():
            if opt == 'name':
                continue
            if opt in ('rwmixread', 'rwmixwrite'):
                r, w = fo.get('rwmixread'), fo.get('rwmixwrite')
                mix = (int(r['parts'][0][2]) if later(r, w) == 'a'
                       else 100 - int(w['parts'][0][2]))
                want = mix if opt == 'rwmixread' else 100 - mix
                nr += 1
                if ro.get(opt) != str(want):
                    bad.append('%s: %s: fio %d, rqlock %s' % (where, opt, want, ro.get(opt)))
                continue
            if opt in ('direct', 'buffered'):
                d, b = fo.get('direct'), fo.get('buffered')
                direct = (int(d['parts'][0][2]) if later(d, b) == 'a'
                          else 1 - int(b['parts'][0][2]))
                want = direct if opt == 'direct' else 1 - direct
                nr += 1
                if ro.get(opt) != str(want):
                    bad.append('%s: %s: fio %d, rqlock %s' % (where, opt, want, ro.get(opt)))
                continue
            if opt in NO_RESOLVED:
                skip('fio prints no resolved value')
                continue
            if opt not in ro:
                if opt in warned:
                    skip('rqlock warns it has no effect')
                elif opt in defaults and defaults[opt] == rec['ptr']:
                    skip('accepted at fio\'s default only')
                    nr += 1
                else:
                    bad.append('%s: %s=%s: not in rqlock\'s resolved options' % (where, opt, rec['ptr']))
                continue
            rv = ro[opt]
            types = {p[0] for p in rec['parts']}
            nr += 1
            if opt != 'filesize' and types & NUMERIC_TYPES and any(p[2] is not None for p in rec['parts']):
                fv = fio_dirs(rec)
                rvals = [rq_number(opt, x) for x in rv.split(',')]
                if opt not in TWO_WAY:
                    fv, rvals = fv[:1], rvals[:1]
                for d, want in enumerate(fv):
                    if want is None:
                        continue
                    if d >= len(rvals) or rvals[d] != want:
                        bad.append('%s: %s: fio %r, rqlock %s' % (where, opt, fv, rv))
                        break
            elif 'OPT_FLOAT_LIST' in types:
                fv = [float(p[2]) for p in rec['parts'] if p[2] is not None]
                if [float(x) for x in rv.split(':')] != fv:
                    bad.append('%s: %s: fio %r, rqlock %s' % (where, opt, fv, rv))
            elif opt == 'rw':
                fname_, _, fpost = rec['ptr'].partition(':')
                rname, _, rpost = rv.partition(':')
                fname_ = SYNONYMS['rw'].get(fname_, fname_)
                ok = fname_ == rname
                if fpost and ok:
                    # rqlock prints the resolved count or bytes; fio's text may
                    # carry a size suffix, read with fio's kb_base rules
                    ok = rpost == str(fio_size(fpost, fo))
                elif ok:
                    ok = not rpost
                if not ok:
                    bad.append('%s: rw: fio %s, rqlock %s' % (where, rec['ptr'], rv))
            elif opt == 'random_distribution' and rec['ptr'].startswith('zoned'):
                # fio's resolved zones (its --debug=parse lines), reads then writes
                z = rec.get('zones', {})
                want = '%s:%s,%s' % (rec['ptr'].split(':')[0], ':'.join(z.get(0, [])),
                                     ':'.join(z.get(1, [])))
                if want != rv:
                    bad.append('%s: random_distribution: fio %s (%s), rqlock %s' %
                               (where, rec['ptr'], want, rv))
            elif opt == 'ignore_error':
                if err_lists(rec['ptr']) != err_lists(rv):
                    bad.append('%s: ignore_error: fio %s, rqlock %s' % (where, rec['ptr'], rv))
            elif opt == 'filesize':
                fv = [int(p[2]) for p in rec['parts'] if p[2] is not None]
                lo, _, hi = rv.partition('-')
                if [int(lo), int(hi or lo)] != (fv + fv)[:2]:
                    bad.append('%s: filesize: fio %r, rqlock %s' % (where, fv, rv))
            elif opt == 'random_distribution':
                f = rec['ptr'].split(':')
                r = rv.split(':')
                fp = [float(x) for x in f[1:]] or ([DIST_DEFAULT[f[0]]] if f[0] in DIST_DEFAULT else [])
                if f[0] in DIST_DEFAULT and len(fp) == 1 and len(f) < 3:
                    pass
                rp = [float(x) for x in r[1:]]
                if f[0] != r[0] or fp != rp:
                    bad.append('%s: random_distribution: fio %s, rqlock %s' % (where, rec['ptr'], rv))
            elif opt == 'cpus_allowed':
                if cpus(rec['ptr']) != cpus(rv):
                    bad.append('%s: cpus_allowed: fio %s, rqlock %s' % (where, rec['ptr'], rv))
            elif opt in BARE_NAMES and rec['ptr'] == '(null)':
                # written bare: fio stores no name (it prints "(null)") and
                # names the logs after the job; rqlock prints the bare word
                if rv != '1':
                    bad.append('%s: %s: fio bare, rqlock %r' % (where, opt, rv))
            else:
                f = SYNONYMS.get(opt, {}).get(rec['ptr'], rec['ptr'])
                if f != rv:
                    bad.append('%s: %s: fio %r, rqlock %r' % (where, opt, rec['ptr'], rv))
        for opt in ro:
            if opt in fo or opt == 'ioengine':
                continue
            if opt == 'stonewall' and multi:
                skip('stonewall between job files')
                continue
            bad.append('%s: %s=%s: rqlock resolved an option fio did not handle' % (where, opt, ro[opt]))
    return bad, nr, skipped


def err_lists(v):
    """ignore_error=R,W,V as lists of errno names (numbers read as fio reads them)."""
    import errno as E
    out = []
    for kind in (v.split(',') + ['', ''])[:3]:
        names = []
        for e in kind.split(':'):
            if not e:
                break                      # fio stops at an empty entry
            names.append(e if e.startswith('E') else E.errorcode.get(abs(int(e)), e))
        out.append(names)
    return out


def fio_size(v, fo):
    """A size as fio reads it (for the rw=...:N postfix, which fio prints no value for)."""
    kb = int(fo['kb_base']['ptr']) if 'kb_base' in fo else 1024
    m = re.match(r'^(-?)(\d+)([a-zA-Z]*)$', v)
    if not m:
        return v
    sign, n, sfx = -1 if m.group(1) else 1, int(m.group(2)), m.group(3).lower()
    pows = {'': 0, 'b': 0, 'k': 1, 'kb': 1, 'kib': 1, 'm': 2, 'mb': 2, 'mib': 2,
            'g': 3, 'gb': 3, 'gib': 3, 't': 4, 'tb': 4, 'tib': 4, 'p': 5, 'pb': 5, 'pib': 5}
    mult = (1000 if kb == 1024 else 1024) if sfx.endswith('ib') else kb
    return sign * n * mult ** pows[sfx]


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    rqlock, corpus = sys.argv[1], sys.argv[2]
    if not shutil.which('fio'):
        print('SKIP: fio is not installed')
        return 77
    tmp = os.environ.get('TMPDIR', '/tmp')
    tmpdir = os.path.join(tmp, 'rq-crosscheck-%d' % os.getpid())
    os.makedirs(tmpdir, exist_ok=True)
    try:
        defaults = fio_defaults(tmpdir)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    failed, total, files = 0, 0, 0
    for fn in sorted(os.listdir(corpus)):
        if not fn.endswith('.fio'):
            continue
        path = os.path.join(corpus, fn)
        head = [l for l in open(path) if l.startswith('#!')]
        args, env, needs = [], dict(os.environ), []
        for l in head:
            k, _, v = l[2:].strip().partition(':')
            if k == 'args':
                args += shlex.split(v)
            elif k == 'env':
                env.update(dict(x.split('=', 1) for x in shlex.split(v)))
            elif k == 'needs':
                needs += v.split()
        missing = [n for n in needs if not shutil.which(n)]
        if missing:
            print('SKIP %s: %s missing' % (fn, ' '.join(missing)))
            continue
        opts = [a for a in args if a.startswith('--')]
        more = [os.path.join(corpus, a) for a in args if not a.startswith('--')]
        rc, ftext = fio_debug(opts + [path] + more, env)
        if rc != 0 or re.search(r'Bad option|failed parsing|dropped', ftext):
            print('FAIL %s: fio refuses it:\n%s' % (fn, ftext[-2000:]))
            failed += 1
            continue
        p = subprocess.run([rqlock, 'run', '--showcmd'] + opts + [path] + more, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            print('FAIL %s: rqlock refuses it: %s' % (fn, p.stderr.strip()))
            failed += 1
            continue
        warned = set()
        for a, b in re.findall(r"warning: option '([^']+)'(?: \(fio's ([^)]+)\))? has no effect",
                               p.stderr):
            warned.update({a, b} - {''})
        bad, nr, skipped = compare(fn, parse_fio(ftext), parse_rq(p.stdout), warned, defaults,
                                   bool(more))
        files += 1
        total += nr
        sk = ', '.join('%d %s' % (n, why) for why, n in sorted(skipped.items()))
        if bad:
            failed += 1
            print('FAIL %s' % fn)
            for b in bad:
                print('  ' + b)
        else:
            print('ok   %s: %d values equal%s' % (fn, nr, '; skipped: ' + sk if sk else ''))
    print('%d files, %d option values compared, %d file(s) differ' % (files, total, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
