"""fleet: sweep points run on several hosts through fio's own client/server.

`rqlock sweep --clients HOSTS` runs every point with the real fio client,
`fio --client=S1 JOB --client=S2 JOB ...`, against `rqlock server` processes
the user started (docs/SERVER.md).  A server's lock mode, lock primitive and
worker count are its own command line's (the client forwards only the job
file), so the sweep does not choose them: it asks each server what it is and
groups the servers by (mode, primitive, workers).  A point of the sweep is
(job file, group, drives, --var values); it runs once, on every server of its
group at the same time, and fio merges their results ("All clients").  To
sweep modes or worker counts, start one server per (host, mode, workers) and
name them all in HOSTS.

HOSTS: a comma list of [NAME=]ADDR.  ADDR is fio's --client syntax:
sock:PATH, ip:HOST,PORT, ip4:HOST,PORT, ip6:HOST,PORT, HOST,PORT or HOST (port
8765).  A PORT after a comma belongs to the address before it, so
"sock:/run/a.sock,localhost,8766" is two addresses.  NAME (letters, digits,
'.', '_', '-') is the host's name in the run store; the servers of one
machine share it.  Without NAME a server's host is its address as written.

What the sweep learns of each server, before anything is written:
  - the PROBE reply (fio's protocol; this module speaks just that): the
    host's name, its program and version (rqlock-X or fio-X), and its CPU
    count - the host's cores in the run store;
  - for an rqlock server, a tiny job (@null0, 64 KiB) through `fio --client`:
    the job's description carries "rqlock lock=MODE lock-type=TYPE workers=N".
The same description in every point's output is checked against the group:
a server restarted with other options fails its point, it is not misfiled.

The fio baseline (--fio-clients HOSTS, the same syntax, `fio --server`
processes): the same job files run by real fio on those hosts.  Devices come
from --fio-dev PREFIX=TEMPLATE (paths on the fio hosts: mode "fio-kernel");
without it each device job runs on fio's null engine (ioengine=null, no
device: mode "fio-null", what fio's own submission path costs).  A fio
server has no worker count: its points take each W of the rqlock groups
(${WORKERS} and ${PER_DRIVE} of the job file), and fio uses whatever CPUs
the host gives it.

The job file is resolved here, not on the servers: ${VARS} are substituted
and only the point's sections are kept (fio's client forwards no --section
and a server expands ${VARS} from its own environment); the resolved copy
is kept in RUN/jobs/points/.
"""
import os
import re
import socket
import struct
import subprocess
import tempfile

from . import store

FIO_VER = 97            # FIO_SERVER_VER of fio 3.33
OP_QUIT, OP_TEXT, OP_PROBE = 1, 5, 10
DEFAULT_PORT = 8765
FIO_KERNEL, FIO_NULL = "fio-kernel", "fio-null"   # the fio baseline's modes on a fleet
FIO_MODES = (FIO_KERNEL, FIO_NULL)
NAME_RE = re.compile(r"^[A-Za-z0-9._-]+$")
DESC_RE = re.compile(r"^rqlock lock=(\S+) lock-type=(\S+) workers=(\d+)(?: lockdep=(on|off))?")
PROBE_JOB = "[fleet-probe]\nioengine=io_uring\nfilename=@null0\nrw=read\nbs=4k\nsize=64k\n"


class FleetError(Exception):
    """Bad --clients input or an unusable server: one line, exit 2."""


# ---------------------------------------------------------------- addresses

def split_hosts(s):
    """'sock:/a,localhost,8766,b=ip:127.0.0.1,9000' -> entries; a bare number
    after a comma is the port of the entry before it."""
    out = []
    for tok in s.split(","):
        tok = tok.strip()
        if tok.isdigit() and out and "," not in out[-1] and not out[-1].startswith("sock:") \
                and not out[-1].split("=", 1)[-1].startswith("sock:"):
            out[-1] += "," + tok
            continue
        out.append(tok)
    return out


def parse_addr(addr):
    """fio's --client address -> (family, target, port) where target is a
    path (AF_UNIX) or a host name; raises FleetError."""
    if addr.startswith("sock:"):
        path = addr[5:]
        if not path.startswith("/"):
            raise FleetError("%s: sock: wants an absolute path" % addr)
        if len(path.encode()) > 107:
            raise FleetError("%s: the socket path is longer than 107 bytes" % addr)
        return socket.AF_UNIX, path, None
    fam = socket.AF_UNSPEC
    rest = addr
    for pre, f in (("ip6:", socket.AF_INET6), ("ip4:", socket.AF_INET), ("ip:", socket.AF_INET)):
        if addr.startswith(pre):
            fam, rest = f, addr[len(pre):]
            break
    else:
        if re.match(r"^[a-z0-9]+:", addr) and not re.match(r"^[0-9a-fA-F:]+$", addr):
            raise FleetError("%s: unknown address kind %s (sock:PATH, ip:HOST,PORT, ip6:HOST,PORT, "
                             "HOST,PORT)" % (addr, addr.split(":")[0] + ":"))
    host, _, port = rest.partition(",")
    if not host or not re.match(r"^[A-Za-z0-9._:-]+$", host):
        raise FleetError("%s: expected HOST or HOST,PORT" % addr)
    if port:
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise FleetError("%s: port %s is not 1..65535" % (addr, port))
        port = int(port)
    else:
        port = DEFAULT_PORT
    return fam, host, port


def parse_clients(values):
    """--clients values (each a comma list) -> [{"name", "addr"}]; raises FleetError."""
    out, seen = [], set()
    for v in values:
        if not v.strip():
            raise FleetError("--clients: empty list")
        for e in split_hosts(v):
            if not e:
                raise FleetError("--clients %s: an empty entry" % v)
            name, addr = None, e
            m = re.match(r"^([^=:,/]+)=(.*)$", e)
            if m:
                name, addr = m.group(1), m.group(2)
                if not NAME_RE.match(name):
                    raise FleetError("%s: host name %r: letters, digits, '.', '_', '-' only" % (e, name))
            if not addr:
                raise FleetError("%s: no address after the name" % e)
            parse_addr(addr)
            if addr in seen:
                raise FleetError("%s: the address is given twice" % addr)
            seen.add(addr)
            out.append({"name": name or addr, "addr": addr})
    return out


# ---------------------------------------------------------------- the probe

def crc16(data):
    """CRC-16/ARC, as fio's crc/crc16.c."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def packet(op, pdu=b"", tag=0):
    hdr = struct.pack("<HHIQI", FIO_VER, op, 0, tag, len(pdu))
    return hdr + struct.pack("<HH", crc16(hdr), crc16(pdu) if pdu else 0) + pdu


def _recv(s, n):
    buf = b""
    while len(buf) < n:
        b = s.recv(n - len(buf))
        if not b:
            raise FleetError("the server closed the connection")
        buf += b
    return buf


def connect(addr, timeout=5.0):
    fam, target, port = parse_addr(addr)
    if fam == socket.AF_UNIX:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(target)
        except OSError:
            s.close()
            raise
        return s
    infos = socket.getaddrinfo(target, port, fam, socket.SOCK_STREAM)
    err = None
    for f, t, p, _, sa in infos:
        s = socket.socket(f, t, p)
        s.settimeout(timeout)
        try:
            s.connect(sa)
            return s
        except OSError as e:
            err = e
            s.close()
    raise err or OSError("no address")


def unreachable(servers, timeout=2.0):
    """'NAME (ADDR): connect: REASON' for each server that refuses a
    connection now: fio's own message ("fio: connect: Connection refused")
    does not say which host."""
    out = []
    for sv in servers:
        try:
            connect(sv["addr"], timeout).close()
        except (OSError, FleetError) as e:
            why = getattr(e, "strerror", None) or str(e)
            out.append("%s: connect: %s" % (sv["name"] if sv["name"] == sv["addr"] else
                                             "%s (%s)" % (sv["name"], sv["addr"]), why))
    return out


def probe(addr, timeout=5.0):
    """The PROBE reply of the fio-protocol server at addr: {hostname,
    version, cpus}; raises FleetError naming the address."""
    try:
        s = connect(addr, timeout)
    except OSError as e:
        raise FleetError("%s: cannot connect: %s (is a server listening there?)" % (addr, e.strerror or e))
    try:
        s.sendall(packet(OP_PROBE, struct.pack("<Q", 0) + b"\0" * 128, tag=1))
        for _ in range(64):
            h = _recv(s, 24)
            ver, op, flags, tag, plen, hcrc, pcrc = struct.unpack("<HHIQIHH", h)
            if hcrc != crc16(h[:20]):
                raise FleetError("%s: not a fio server (a reply with a bad header checksum)" % addr)
            if ver != FIO_VER:
                raise FleetError("%s: protocol version %d, the sweep speaks %d (fio 3.33)" % (addr, ver, FIO_VER))
            pdu = _recv(s, plen) if plen else b""
            if op == OP_PROBE:
                if len(pdu) < 110:
                    raise FleetError("%s: a short probe reply" % addr)
                host = pdu[0:64].split(b"\0")[0].decode(errors="replace")
                ver_s = pdu[65:97].split(b"\0")[0].decode(errors="replace")
                cpus = struct.unpack_from("<I", pdu, 100)[0]
                try:
                    s.sendall(packet(OP_QUIT))
                except OSError:
                    pass
                return {"hostname": host, "version": ver_s, "cpus": cpus}
        raise FleetError("%s: no probe reply" % addr)
    except socket.timeout:
        raise FleetError("%s: no probe reply within %g s" % (addr, timeout))
    except OSError as e:
        raise FleetError("%s: %s" % (addr, e.strerror or e))
    finally:
        s.close()


def server_config(fio, addr, timeout=60):
    """(mode, primitive, workers, lockdep) of the rqlock server at addr, from
    the description of a tiny job run through the real fio client (lockdep
    "off" from a server that does not say)."""
    with tempfile.TemporaryDirectory(prefix="rqlock-fleet-probe.") as tmp:
        job = os.path.join(tmp, "probe.fio")
        with open(job, "w") as f:
            f.write(PROBE_JOB)
        try:
            p = subprocess.run([fio, "--output-format=json", "--client=" + addr, job], capture_output=True,
                               text=True, timeout=timeout, start_new_session=True)
        except subprocess.TimeoutExpired:
            raise FleetError("%s: the probe job took more than %d s" % (addr, timeout))
        try:
            doc = store.parse_json_text(p.stdout)
        except ValueError:
            last = (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or ["exit %d" % p.returncode]
            raise FleetError("%s: the probe job failed: %s" % (addr, last[0]))
    for js in doc.get("client_stats", []):
        m = DESC_RE.match(js.get("desc") or "")
        if m:
            return m.group(1), m.group(2), int(m.group(3)), m.group(4) or "off"
    raise FleetError("%s: the probe job's description names no lock mode (is it an rqlock server?)" % addr)


def discover(clients, fio, kind):
    """Probe every server of --clients (kind "rqlock") or --fio-clients
    (kind "fio"): the entries with hostname, version, cores and (rqlock)
    mode, primitive, workers.  Raises FleetError."""
    out = []
    for c in clients:
        pr = probe(c["addr"])
        is_rq = pr["version"].startswith("rqlock")
        if kind == "rqlock" and not is_rq:
            raise FleetError("%s: a %s server, not rqlock (give fio servers with --fio-clients)" % (
                c["addr"], pr["version"] or "?"))
        if kind == "fio" and is_rq:
            raise FleetError("%s: an rqlock server, not fio (give rqlock servers with --clients)" % c["addr"])
        e = dict(c, hostname=pr["hostname"], version=pr["version"], cores=pr["cpus"])
        if kind == "rqlock":
            e["mode"], e["primitive"], e["workers"], e["lockdep"] = server_config(fio, c["addr"])
        out.append(e)
    seen = {}
    for e in out:
        k = (e["name"], e.get("mode"), e.get("primitive"), e.get("workers"))
        if k in seen:
            raise FleetError("%s and %s: host %s has two servers with the same options (%s)" % (
                seen[k], e["addr"], e["name"], "lock=%s lock-type=%s workers=%s" % k[1:] if kind == "rqlock"
                else "fio"))
        seen[k] = e["addr"]
    return out


def groups(servers):
    """{(mode, primitive, workers): [servers]} in a stable order."""
    g = {}
    for s in servers:
        g.setdefault((s["mode"], s["primitive"], s["workers"]), []).append(s)
    return g


# ---------------------------------------------------------------- job files

def resolve_job(text, env, sections, null_engine=False):
    """The job file as one host runs it: ${VAR} replaced from env (those
    env has), only the given sections (None: all) and [global]; with
    null_engine, on fio's null engine: every ioengine= becomes null,
    filename= and direct= go (no device is opened, no file created)."""
    out, keep = [], True
    if null_engine:
        out.append("; resolved by rqlock sweep for fio's null engine (no device)")
        if not re.search(r"^\s*\[global\]", text, re.M):
            out.append("[global]\nioengine=null")
    for line in text.splitlines():
        m = re.match(r"\s*\[([^\]]+)\]", line)
        if m:
            keep = m.group(1) == "global" or sections is None or m.group(1) in sections
            if keep:
                out.append(line)
                if null_engine and m.group(1) == "global":
                    out.append("ioengine=null")
            continue
        if not keep:
            continue
        if not line.lstrip().startswith((";", "#")):
            line = re.sub(r"\$\{(\w+)\}", lambda mm: env.get(mm.group(1), mm.group(0)), line)
            if null_engine:
                k = line.split("=", 1)[0].strip()
                if k == "ioengine":
                    line = "ioengine=null"
                elif k in ("filename", "direct"):
                    continue
        out.append(line)
    return "\n".join(out) + "\n"


def client_args(servers, job):
    """fio's syntax for several hosts: the job file after each --client
    (with one job after all of them fio 3.33 runs only one host in normal
    output; docs/SERVER.md).  job: one path, or {addr: path} per host."""
    args = []
    for s in servers:
        args += ["--client=" + s["addr"], job[s["addr"]] if isinstance(job, dict) else job]
    return args


# ---------------------------------------------------------------- results

def host_key(js):
    return js.get("hostname"), js.get("port")


def addr_key(addr):
    """(hostname, port) as fio's client_stats name a server at addr."""
    fam, target, port = parse_addr(addr)
    return (target, None) if fam == socket.AF_UNIX else (target, port)


def split_by_host(doc, servers):
    """A fleet point's fio client JSON -> {server name: {"jobs": [...]}}:
    each host's jobs as a rqlock/fio JSON document the metrics read, "All
    clients" left out.  Raises ValueError when a host's output is missing."""
    out = {}
    stats = [js for js in doc.get("client_stats", []) if js.get("jobname") != "All clients"]
    for s in servers:
        h, p = addr_key(s["addr"])
        jobs = [js for js in stats if js.get("hostname") == h and (p is None or js.get("port") == p)]
        if not jobs:
            raise ValueError("no results from %s (%s)" % (s["name"], s["addr"]))
        out[s["name"]] = {"jobs": jobs}
    return out


def check_desc(doc, servers, mode, primitive, workers):
    """None when every host's jobs say they ran with (mode, primitive,
    workers), else why not (a server restarted with other options)."""
    for name, d in split_by_host(doc, servers).items():
        for js in d["jobs"]:
            m = DESC_RE.match(js.get("desc") or "")
            got = (m.group(1), m.group(2), int(m.group(3))) if m else None
            if got != (mode, primitive, workers):
                return "%s ran lock=%s lock-type=%s workers=%s, the point is lock=%s lock-type=%s workers=%d" % (
                    name, *(got or ("?", "?", "?")), mode, primitive, workers)
    return None
