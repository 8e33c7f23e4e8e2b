#!/usr/bin/env python3
"""Write blktrace binary traces for the replay tests (issue 34).

blktrace cannot capture on the test machines (debugfs' trace files give
EPERM), so the tests write traces themselves in the format blkparse -d
leaves and fio's read_iolog reads: struct blk_io_trace (blktrace_api.h,
48 bytes: magic|version, sequence, time ns, sector, bytes, action, pid,
device, cpu, error, pdu_len) followed by pdu_len bytes of payload, in
either byte order.

Each I/O is written as the kernel traces it: a queue event (Q, the one
fio replays), then get-request, insert, issue and complete events, with
back merges, process-name and message notifies (with pdus), remaps with
their 16-byte pdu and an occasional timestamp notify (whose action's low
bits equal a queue's: fio must see the notify bit).  A discard carries
WRITE|DISCARD, a flush WRITE|FLUSH with no bytes, as __blk_add_trace()
sets them.

  blktrace_gen.py OUT [--kind mixed|bad-magic|...] [--big] [--seed N]
                  [--devices MAJ:MIN,...] [--count N] [--burst N] [--expect FILE]
  blktrace_gen.py OUT --merge IN,IN... [--scalars P,P...] [--iters N,N...]

--expect writes what a replay must issue (fio 3.33's rules: the queue
events only; reads, writes, trims, syncs) as JSON: per direction the
count and the bytes, the (op, major, minor, offset, length, time) list
and the depth fio's probe finds.  --merge writes the traces merged as
merge_blktrace_file documents it (an implementation of its own, to check
rqlock's against).
"""
import argparse
import json
import random
import struct
import sys

MAGIC = 0x65617400
VERSION = 0x07
# categories (<< 16 in action)
TC_READ, TC_WRITE, TC_FLUSH, TC_SYNC, TC_QUEUE = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4
TC_ISSUE, TC_COMPLETE, TC_NOTIFY, TC_DISCARD = 1 << 6, 1 << 7, 1 << 10, 1 << 13
# basic actions (low 16 bits)
TA_QUEUE, TA_BACKMERGE, TA_GETRQ, TA_ISSUE, TA_COMPLETE, TA_INSERT, TA_REMAP = 1, 2, 4, 7, 8, 12, 15
TN_PROCESS, TN_TIMESTAMP, TN_MESSAGE = 0, 1, 2
REC = struct.Struct('IIQQIIIIIHH')
assert REC.size == 48


def act(basic, *cats):
    """An action word: the basic action and its categories."""
    c = 0
    for x in cats:
        c |= x
    return basic | (c << 16)


def dev_t(maj, minor):
    """The kernel's in-trace dev_t: MAJOR << 20 | MINOR."""
    return (maj << 20) | minor


class Trace:
    """Records in order; write() packs them in one byte order."""

    def __init__(self, big=False):
        self.recs = []
        self.big = big
        self.seq = 0

    def add(self, time, action, sector=0, nbytes=0, pid=1234, device=0, cpu=0, pdu=b'', magic=None,
            error=0):
        self.seq += 1
        m = MAGIC | VERSION if magic is None else magic
        self.recs.append((m, self.seq, time, sector, nbytes, action, pid, device, cpu, error, len(pdu), pdu))

    def pack(self):
        fmt = struct.Struct(('>' if self.big else '<') + REC.format)
        out = bytearray()
        for r in self.recs:
            out += fmt.pack(*r[:11]) + r[11]
        return bytes(out)


def dir_cats(op):
    return {'read': (TC_READ,), 'write': (TC_WRITE,), 'trim': (TC_WRITE, TC_DISCARD),
            'sync': (TC_WRITE, TC_FLUSH)}[op]


def one_io(tr, rng, t, op, dev, sector, nbytes, pid, held):
    """The events the kernel traces for one bio: Q, G, I, D (and noise); C now or into @held."""
    cats = dir_cats(op)
    tr.add(t, act(TA_QUEUE, TC_QUEUE, *cats), sector, nbytes, pid, dev, rng.randrange(2))
    if rng.random() < 0.15:
        # a remap (device mapper / partition): 16-byte pdu, not a queue event
        pdu = struct.pack(('>' if tr.big else '<') + 'IIQ', dev, dev, sector)
        tr.add(t + 50, act(TA_REMAP, TC_QUEUE, *cats), sector, nbytes, pid, dev, 0, pdu)
    merged = rng.random() < 0.2 and op in ('read', 'write') and held is None
    if merged:
        # merged into the request before it: no request of its own
        tr.add(t + 100, act(TA_BACKMERGE, TC_QUEUE, *cats), sector, nbytes, pid, dev)
    else:
        tr.add(t + 100, act(TA_GETRQ, TC_QUEUE, *cats), sector, nbytes, pid, dev)
        tr.add(t + 200, act(TA_INSERT, TC_QUEUE, *cats), sector, nbytes, pid, dev)
    tr.add(t + 300, act(TA_ISSUE, TC_ISSUE, *cats), sector, nbytes, pid, dev)
    done = (t + 9000, act(TA_COMPLETE, TC_COMPLETE, *cats), sector, nbytes, pid, dev)
    if held is None:
        tr.add(*done)
    else:
        held.append(done)


def probe(tr):
    """fio's depth probe over the records: the depth a job without iodepth replays at."""
    this, depth = [0, 0, 0], [0, 0, 0]
    for r in tr.recs:
        action = r[5]
        if action & (TC_NOTIFY << 16):
            continue
        cat, basic = action >> 16, action & 0xffff
        d = 0 if cat & TC_READ else 1 if cat & TC_WRITE else 2 if cat & TC_DISCARD else None
        if d is None:
            continue
        if basic == TA_QUEUE:
            this[d] += 1
        elif basic in (TA_BACKMERGE, TA_BACKMERGE + 1):
            this[d] -= 1
        elif basic == TA_COMPLETE:
            depth[d] = max(depth[d], this[d])
            this[d] = 0
    return depth


def mixed(args, rng, tr, expect):
    """args.count queue events: reads, writes, trims and flushes over the devices."""
    devs = [dev_t(*map(int, d.split(':'))) for d in args.devices.split(',')]
    ops = args.ops.split(',')
    t = args.start
    pending = []
    for i, d in enumerate(devs):
        tr.add(t, act(TN_PROCESS, TC_NOTIFY), 0, 0, 4000 + i, d, 0, b'rqlock-gen%d\0' % i)
    for n in range(args.count):
        op = ops[n % len(ops)] if args.cycle else rng.choice(ops)
        dev = devs[rng.randrange(len(devs))]
        nbytes = 0 if op == 'sync' else rng.choice((512, 4096, 8192, 16384, 65536, 7 * 512))
        sector = rng.randrange(0, args.span // 512 - 128)
        if n % 50 == 7:
            # blktrace's message notify: text after the record
            tr.add(t, act(TN_MESSAGE, TC_NOTIFY), 0, 0, 0, dev, 0, b'rqlock test message %d\0' % n)
        if n % 64 == 3:
            pdu = struct.pack(('>' if tr.big else '<') + 'II', 1700000000 + n, 0)
            tr.add(t, act(TN_TIMESTAMP, TC_NOTIFY), 0, 0, 0, dev, 0, pdu)
        held = [] if args.burst > 1 else None
        one_io(tr, rng, t, op, dev, sector, nbytes, 5000 + n % 3, held)
        expect.append((op, dev, sector * 512, nbytes, t))
        t += rng.randrange(args.gap // 2, args.gap * 3 // 2 + 1)
        if held is not None:
            pending.extend(held)
            if len(pending) == args.burst or n == args.count - 1:
                # the burst completes together: args.burst queued at once
                for c in pending:
                    tr.add(t, *c[1:])
                pending.clear()


def read_trace(path):
    """The records of a trace as (fields..., pdu) tuples, in the file's byte order."""
    data = open(path, 'rb').read()
    big = struct.unpack('>I', data[:4])[0] & 0xffffff00 == MAGIC
    fmt = struct.Struct(('>' if big else '<') + REC.format)
    recs, pos = [], 0
    while pos + 48 <= len(data):
        f = fmt.unpack_from(data, pos)
        recs.append(f + (data[pos + 48:pos + 48 + f[10]],))
        pos += 48 + f[10]
    return recs


def merge(paths, scalars, iters):
    """merge_blktrace_file as documented: queue events with a direction, by time, scaled, passes shifted."""
    heads = []
    for i, p in enumerate(paths):
        recs = read_trace(p)
        kept = [r for r in recs if r[5] & 0xffff == TA_QUEUE and (r[5] >> 16) & (TC_READ | TC_WRITE | TC_DISCARD)]
        length = recs[-1][2] if recs else 0
        events = [(r, it) for it in range(iters[i]) for r in kept]
        heads.append([(r[:2] + ((r[2] + it * length) * scalars[i] // 100,) + r[3:10] + (0,))
                      for r, it in events])
    out = bytearray()
    pos = [0] * len(heads)
    native = struct.Struct(('>' if sys.byteorder == 'big' else '<') + REC.format)
    while True:
        best = None
        for i, h in enumerate(heads):
            if pos[i] < len(h) and (best is None or h[pos[i]][2] < heads[best][pos[best]][2]):
                best = i
        if best is None:
            return bytes(out)
        out += native.pack(*heads[best][pos[best]])
        pos[best] += 1


def summary(expect):
    out = {op: {'ios': 0, 'bytes': 0} for op in ('read', 'write', 'trim', 'sync')}
    for op, _dev, _off, nbytes, _t in expect:
        out[op]['ios'] += 1
        out[op]['bytes'] += nbytes
    out['ios'] = [[op, dev >> 20, dev & 0xfffff, off, nbytes, t] for op, dev, off, nbytes, t in expect]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('out')
    ap.add_argument('--kind', default='mixed',
                    choices=('mixed', 'bad-magic', 'bad-version', 'truncated', 'pdu-past-end', 'empty-io'))
    ap.add_argument('--big', action='store_true', help='big-endian records (the writer byte-swapped)')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=200, help='queue events (I/Os)')
    ap.add_argument('--ops', default='read,write,trim,sync')
    ap.add_argument('--cycle', action='store_true', help='ops in turn, not drawn')
    ap.add_argument('--devices', default='8:0', help='MAJ:MIN,... the I/Os are spread over')
    ap.add_argument('--span', type=int, default=8 << 20, help='bytes of each device the I/Os touch')
    ap.add_argument('--gap', type=int, default=100000, help='mean ns between queue events')
    ap.add_argument('--start', type=int, default=1000, help='time of the first event, ns')
    ap.add_argument('--expect', help='write what a replay issues here (JSON)')
    ap.add_argument('--burst', type=int, default=1, help='I/Os queued before they complete (the depth)')
    ap.add_argument('--merge', help='IN,IN...: write OUT as these traces merged (merge_blktrace_file)')
    ap.add_argument('--scalars', help='P,P...: merge: percent of each trace\'s times (default 100)')
    ap.add_argument('--iters', help='N,N...: merge: passes of each trace (default 1)')
    args = ap.parse_args()
    if args.merge:
        ins = args.merge.split(',')
        scalars = [int(x) for x in args.scalars.split(',')] if args.scalars else [100] * len(ins)
        iters = [int(x) for x in args.iters.split(',')] if args.iters else [1] * len(ins)
        with open(args.out, 'wb') as f:
            f.write(merge(ins, scalars, iters))
        return 0
    rng = random.Random(args.seed)
    tr = Trace(args.big)
    expect = []
    mixed(args, rng, tr, expect)
    data = tr.pack()
    if args.kind == 'bad-magic':
        # the third record's magic is wrong: an error at record 3 (fio: "bad magic in blktrace data")
        tr.recs[2] = (0x12345607,) + tr.recs[2][1:]
        data = tr.pack()
    elif args.kind == 'bad-version':
        tr.recs[2] = (MAGIC | 0x06,) + tr.recs[2][1:]
        data = tr.pack()
    elif args.kind == 'truncated':
        data = data[:len(data) - 20]
    elif args.kind == 'pdu-past-end':
        tr.add(args.start + 10 ** 9, act(TN_MESSAGE, TC_NOTIFY), 0, 0, 0, 0, 0, b'x' * 40)
        data = tr.pack()[:-30]
    elif args.kind == 'empty-io':
        tr.add(args.start + 10 ** 9, act(TA_QUEUE, TC_QUEUE, TC_READ), 8, 0, 1, tr.recs[-1][7])
        data = tr.pack()
    with open(args.out, 'wb') as f:
        f.write(data)
    if args.expect:
        out = summary(expect)
        depth = probe(tr)
        ios = [out[op]['ios'] for op in ('read', 'write', 'trim')]
        out['depth'] = max([min(d, 1024) if d > 0 else 1 if n else 0 for d, n in zip(depth, ios)] + [1])
        with open(args.expect, 'w') as f:
            json.dump(out, f)
    return 0


if __name__ == '__main__':
    sys.exit(main())
