#!/usr/bin/env python3
"""tests/fio_peer.py ADDR MODE [JOBFILE]: a misbehaving fio 3.33 client.

Speaks just enough of fio's client/server protocol (24-byte little-endian
header, CRC-16/ARC, FIO_SERVER_VER 97) to test what rqlock server does
with bad peers.  ADDR is sock:PATH or ip:HOST,PORT (loopback only).

MODE:
  garbage    an HTTP request and filler (a port scanner), then close
  badcrc     a PROBE whose header checksum is wrong
  badpdu     a PROBE whose payload checksum is wrong
  version    a PROBE with protocol version 96
  oversize   a header announcing a 1 MiB fragment (fio's limit is 1 KiB)
  malformed  a JOB whose buf_len runs past its payload
  slow       half a header, then silence until the server hangs up
  vanish     PROBE, JOB (JOBFILE), RUN, then close while the jobs run
  probe      a correct PROBE; prints the reply's hostname and version
  etaping    PROBE, then only SEND_ETA every 0.3 s until the server hangs up
             (at its idle timeout: pings are not activity); gives up after 60 s
  ssstate    PROBE, JOB (JOBFILE), RUN, then read until STOP; prints each
             TS's steady-state fields: name, ss_dur, ss_state, and the
             samples' count and total as fio's client would read them
  latebusy   connect, stay silent 2.5 s (a fio client on a loaded machine,
             between connect() and sending its job), then PROBE and JOB
             (JOBFILE) as fio does, and read until the server's TEXT lines
             end; prints the one saying busy (the server holds a run)

Exit 0 when the exchange went as the mode expects (for slow: the server
closed the connection), 1 otherwise.
"""
import socket
import struct
import sys
import time

VER = 97
OP = {'QUIT': 1, 'JOB': 3, 'TEXT': 5, 'SEND_ETA': 8, 'PROBE': 10, 'RUN': 16}


def crc16(data):
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def packet(op, pdu=b'', tag=0, flags=0, ver=VER, bad_hdr=False, bad_pdu=False):
    hdr = struct.pack('<HHIQI', ver, op, flags, tag, len(pdu))
    c1 = crc16(hdr) ^ (0x5a5a if bad_hdr else 0)
    c2 = (crc16(pdu) if pdu else 0) ^ (0x1234 if bad_pdu else 0)
    return hdr + struct.pack('<HH', c1, c2) + pdu


def fragments(op, pdu):
    out = b''
    for i in range(0, len(pdu), 1024):
        chunk = pdu[i:i + 1024]
        out += packet(op, chunk, flags=1 if i + 1024 < len(pdu) else 0)
    return out


def connect(addr):
    if addr.startswith('sock:'):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(addr[5:])
        return s
    host, port = addr.split(':', 1)[1].split(',')
    if host not in ('127.0.0.1', 'localhost', '::1'):
        sys.exit('fio_peer: loopback addresses only')
    s = socket.create_connection((host, int(port)))
    return s


def recv_exact(s, n):
    b = b''
    while len(b) < n:
        d = s.recv(n - len(b))
        if not d:
            return None
        b += d
    return b


def recv_packet(s):
    hdr = recv_exact(s, 24)
    if hdr is None:
        return None
    ver, op, flags, tag, plen, c1, c2 = struct.unpack('<HHIQIHH', hdr)
    pdu = recv_exact(s, plen) if plen else b''
    return op, tag, pdu


def recv_command(s):
    """A whole command: its fragments (F_MORE set on all but the last) joined."""
    pdu = b''
    while True:
        hdr = recv_exact(s, 24)
        if hdr is None:
            return None
        ver, op, flags, tag, plen, c1, c2 = struct.unpack('<HHIQIHH', hdr)
        pdu += recv_exact(s, plen) if plen else b''
        if not flags & 1:
            return op, tag, pdu


def probe_pdu():
    return struct.pack('<Q', 0) + b'fio_peer'.ljust(128, b'\0')


def closed_by_server(s, timeout):
    s.settimeout(timeout)
    try:
        while True:
            d = s.recv(4096)
            if not d:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def main():
    addr, mode = sys.argv[1], sys.argv[2]
    s = connect(addr)
    if mode == 'garbage':
        # fixed bytes, so the log line is always the same: opcode 'T ' is no opcode
        s.sendall(b'GET / HTTP/1.1\r\nHost: rqlock\r\n\r\n' + bytes(range(256)) * 16)
        return 0 if closed_by_server(s, 20) else 1
    if mode in ('badcrc', 'badpdu', 'version'):
        s.sendall(packet(OP['PROBE'], probe_pdu(), tag=7, bad_hdr=mode == 'badcrc',
                         bad_pdu=mode == 'badpdu', ver=96 if mode == 'version' else VER))
        return 0 if closed_by_server(s, 20) else 1
    if mode == 'oversize':
        hdr = struct.pack('<HHIQI', VER, OP['JOB'], 0, 0, 1 << 20)
        s.sendall(hdr + struct.pack('<HH', crc16(hdr), 0) + b'x' * 4096)
        return 0 if closed_by_server(s, 20) else 1
    if mode == 'malformed':
        s.sendall(packet(OP['JOB'], struct.pack('<II', 4096, 1) + b'[x]\n'))
        return 0 if closed_by_server(s, 20) else 1
    if mode == 'slow':
        s.sendall(packet(OP['PROBE'], probe_pdu())[:12])
        return 0 if closed_by_server(s, 60) else 1
    if mode == 'probe':
        s.sendall(packet(OP['PROBE'], probe_pdu(), tag=0x1234))
        r = recv_packet(s)
        if not r or r[0] != OP['PROBE'] or r[1] != 0x1234 or len(r[2]) != 112:
            return 1
        print(r[2][:64].rstrip(b'\0').decode(), r[2][65:97].rstrip(b'\0').decode())
        s.sendall(packet(OP['QUIT']))
        return 0
    if mode == 'vanish':
        text = open(sys.argv[3], 'rb').read() + b'\0'
        job = struct.pack('<II', len(text), 1) + text
        s.sendall(packet(OP['PROBE'], probe_pdu(), tag=1) + fragments(OP['JOB'], job) + packet(OP['RUN']))
        # wait for SERVER_START (14): the jobs are running
        while True:
            r = recv_packet(s)
            if r is None:
                return 1
            if r[0] == 14:
                break
        time.sleep(0.5)
        s.close()
        return 0
    if mode == 'ssstate':
        text = open(sys.argv[3], 'rb').read() + b'\0'
        job = struct.pack('<II', len(text), 1) + text
        s.sendall(packet(OP['PROBE'], probe_pdu(), tag=1) + fragments(OP['JOB'], job) + packet(OP['RUN']))
        s.settimeout(120)
        while True:
            r = recv_command(s)
            if r is None:
                return 1
            if r[0] == 12:		# STOP: the run is over
                s.sendall(packet(OP['QUIT']))
                return 0
            if r[0] != 6:		# TS: fio 3.33's struct cmd_ts_pdu (stat.h; server/fio_proto.h)
                continue
            p = r[2]
            name = p[:128].split(b'\0')[0].decode()
            dur, state, head = struct.unpack_from('<QII', p, 183732)
            io, bo = struct.unpack_from('<QQ', p, 183816)
            n = 0
            total = 0
            if state & 0x20:	# FIO_SS_DATA: the samples, inside the packet
                if io + 8 * dur > len(p) or bo + 8 * dur > len(p):
                    print('%s: samples past the packet' % name)
                    return 1
                n = dur
                total = sum(struct.unpack_from('<%dQ' % dur, p, io))
            print('%s ss_dur=%d ss_state=0x%02x samples=%d iops_sum=%s' %
                  (name, dur, state, n, 'yes' if total else 'no'))
    if mode == 'etaping':
        s.sendall(packet(OP['PROBE'], probe_pdu(), tag=1))
        t0 = time.time()
        while time.time() - t0 < 60:
            try:
                s.sendall(packet(OP['SEND_ETA'], tag=2))
            except (BrokenPipeError, ConnectionResetError):
                break
            if closed_by_server(s, 0.3):
                break
        else:
            return 1
        print('closed after %.1f s of ETA pings' % (time.time() - t0))
        return 0
    if mode == 'latebusy':
        time.sleep(2.5)
        text = open(sys.argv[3], 'rb').read() + b'\0'
        job = struct.pack('<II', len(text), 1) + text
        try:
            s.sendall(packet(OP['PROBE'], probe_pdu(), tag=1) + fragments(OP['JOB'], job))
        except (BrokenPipeError, ConnectionResetError) as e:
            print('fio_peer: sending the job: %s (the server hung up first)' % e)
            return 1
        s.settimeout(20)
        while True:
            try:
                r = recv_packet(s)
            except (ConnectionResetError, socket.timeout) as e:
                print('fio_peer: %s before a busy line' % e)
                return 1
            if r is None:
                print('fio_peer: the server closed without a busy line')
                return 1
            if r[0] == OP['TEXT'] and b'busy, serving' in r[2]:
                print(r[2][24:].rstrip(b'\0\n').decode())
                return 0
    sys.exit('fio_peer: unknown mode ' + mode)


if __name__ == '__main__':
    sys.exit(main())
