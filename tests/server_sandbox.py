#!/usr/bin/env python3
"""rqlock server's file policy, judged on the filesystem (issue 25).

A sandbox holds an allowed directory and forbidden ones (with files to
overwrite, delete and truncate, a symlink out and a dangling symlink out);
`rqlock server` serves it under the default policy (built-in devices only,
its working directory forbidden) and under --allow ALLOWED/ (started inside
ALLOWED).  Each job goes through the real `fio --client`; after each, the
sandbox is compared with its snapshot: nothing may be created, changed or
deleted outside what the policy allows, and the server must still answer.

  server_sandbox.py RQLOCK table            the issue's table, fixed cases
  server_sandbox.py RQLOCK random N [SEED]  N random jobs from the path-bearing options

Exit 0 when every case held, 1 on a breach (each printed with its job), 77
when fio 3.33 is not installed.
"""
import hashlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def have_fio():
    try:
        v = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout
    except OSError:
        return False
    return v.startswith("fio-3.33")


class Sandbox:
    """ROOT/{allowed,out,cwd}: the files a hostile job aims at."""

    def __init__(self, top):
        self.root = os.path.join(top, "box")
        self.allowed = os.path.join(self.root, "allowed")
        self.out = os.path.join(self.root, "out")
        self.cwd = os.path.join(self.root, "cwd")
        self.reset()

    def reset(self):
        shutil.rmtree(self.root, ignore_errors=True)
        for d in (self.allowed, self.out, self.cwd):
            os.makedirs(d)
        for d in (self.out, self.cwd, self.allowed):
            for name in ("existing", "victim"):
                with open(os.path.join(d, name), "wb") as f:
                    f.write(b"precious " * 2000)
            with open(os.path.join(d, "clob_bw.log"), "w") as f:
                f.write("0, 1, 0, 4096, 0\n")
            with open(os.path.join(d, "inc.fio"), "w") as f:
                f.write("size=16k\n")
            with open(os.path.join(d, "inc2.fio"), "w") as f:	# a nested include, out of ALLOWED
                f.write("include %s\n" % os.path.join(self.out, "inc.fio"))
        os.symlink(os.path.join(self.out, "existing"), os.path.join(self.allowed, "link_out"))
        os.symlink(os.path.join(self.out, "ghost"), os.path.join(self.allowed, "dangling"))
        os.symlink(self.out, os.path.join(self.allowed, "link_dir"))
        for d in (self.cwd, self.allowed):
            os.makedirs(os.path.join(d, "@x"))	# "@x/../out/..." resolves: a '@' name that is a path

    def snapshot(self):
        snap = {}
        for base, dirs, files in os.walk(self.root):
            for n in dirs + files:
                p = os.path.join(base, n)
                st = os.lstat(p)
                if os.path.islink(p):
                    snap[p] = ("l", os.readlink(p))
                elif os.path.isdir(p):
                    snap[p] = ("d",)
                else:
                    with open(p, "rb") as f:
                        h = hashlib.sha1(f.read()).hexdigest()
                    snap[p] = ("f", st.st_size, h)
        return snap

    def may_change(self, path, allow_dir):
        return allow_dir is not None and (path == allow_dir or path.startswith(allow_dir + "/"))


class Server:
    def __init__(self, rqlock, top, cwd, args, name):
        self.sock = os.path.join(top, name + ".sock")
        self.log = os.path.join(top, name + ".log")
        self.addr = "sock:" + self.sock
        self.p = subprocess.Popen([rqlock, "server", self.addr, "--workers", "2", "--no-pin"] + args,
                                  cwd=cwd, stdout=subprocess.DEVNULL, stderr=open(self.log, "w"))
        for _ in range(100):
            if "listening on" in open(self.log).read():
                return
            if self.p.poll() is not None:
                break
            time.sleep(0.1)
        raise SystemExit("FAIL: server did not start: " + open(self.log).read())

    def alive(self):
        if self.p.poll() is not None:
            return False
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        try:
            s.connect(self.sock)
            return True
        except OSError:
            return False
        finally:
            s.close()

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def run_job(srv, top, text):
    job = os.path.join(top, "job.fio")
    with open(job, "w") as f:
        f.write(text)
    try:
        r = subprocess.run(["fio", "--client=" + srv.addr, job], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return 124, "fio --client timed out"
    return r.returncode, r.stdout + r.stderr


def breaches(before, after, box, allow_dir):
    out = []
    for p in sorted(set(before) | set(after)):
        if before.get(p) == after.get(p) or box.may_change(p, allow_dir):
            continue
        what = "created" if p not in before else "deleted" if p not in after else "changed"
        out.append("%s %s" % (what, p))
    return out


def job_text(opts, include=None):
    lines = ["[global]"]
    if include:
        lines.append("include " + include)
    lines.append("[j]")
    lines += ["%s=%s" % kv if kv[1] is not None else kv[0] for kv in opts]
    return "\n".join(lines) + "\n"


def table_cases(box):
    """The issue's table (each created, overwrote, deleted or truncated outside the policy before the fix)."""
    o, a = box.out, box.allowed
    base = [("size", "16k"), ("bs", "4k")]
    return [
        ("no filename, rw=write", base + [("rw", "write")], None),
        ("directory=OUT, no filename", base + [("rw", "write"), ("directory", o)], None),
        ("directory=ALLOWED filename_format=../out/x", base + [("rw", "write"), ("directory", a),
                                                               ("filename_format", "../out/x")], None),
        ("directory=OUT filename_format=existing overwrite", [("size", "4k"), ("bs", "4k"), ("rw", "write"),
                                                             ("directory", o), ("filename_format", "existing")], None),
        ("directory=OUT filename_format=victim unlink=1", base + [("rw", "read"), ("directory", o),
                                                                 ("filename_format", "victim"), ("unlink", "1")], None),
        ("write_bw_log and write_lat_log into OUT", base + [("filename", "@null0"), ("write_bw_log", o + "/p"),
                                                           ("write_lat_log", o + "/q")], None),
        ("per_job_logs=0 truncates OUT/clob_bw.log", base + [("filename", "@null0"), ("per_job_logs", "0"),
                                                            ("write_bw_log", o + "/clob")], None),
        ("directory=OUT filename=new", base + [("rw", "write"), ("directory", o), ("filename", "new")], None),
        ("directory=OUT filename=victim unlink=1", base + [("rw", "read"), ("directory", o),
                                                           ("filename", "victim"), ("unlink", "1")], None),
        ("symlink out of ALLOWED", base + [("rw", "write"), ("filename", a + "/link_out")], None),
        ("dangling symlink out of ALLOWED", base + [("rw", "write"), ("filename", a + "/dangling")], None),
        ("directory through a symlinked dir", base + [("rw", "write"), ("directory", a + "/link_dir"),
                                                      ("filename", "existing")], None),
        ("directory list ALLOWED:OUT, numjobs=2", base + [("rw", "write"), ("directory", a + ":" + o),
                                                          ("numjobs", "2")], None),
        ("include from OUT", base + [("filename", "@null0")], o + "/inc.fio"),
        ("include of an ALLOWED file that includes OUT", base + [("filename", "@null0")], a + "/inc2.fio"),
        ("@hdd file= in OUT", base + [("rw", "write"), ("filename", "@hdd0,file=" + o + "/hdd.img")], None),
        ("@fault of= a file in OUT", base + [("rw", "write"), ("filename", "@fault0,of=" + o + "/victim")], None),
        ("directory=@x: a '@' name that is a path", base + [("rw", "write"), ("directory", "@x"),
                                                            ("filename_format", "../out/existing")], None),
        ("write_iops_log, write_hist_log in ALLOWED", base + [("filename", "@null0"), ("write_iops_log", a + "/i"),
                                                              ("write_hist_log", a + "/h")], None),
    ]


def allowed_cases(box):
    """What must still run: built-in devices always, files in ALLOWED under --allow."""
    a = box.allowed
    base = [("size", "16k"), ("bs", "4k")]
    return [
        ("@null0", base + [("filename", "@null0"), ("rw", "randread")], "any", []),
        ("@ram0 write", base + [("filename", "@ram0,size=1m"), ("rw", "write")], "any", []),
        ("ioengine=null with a plain name", base + [("ioengine", "null"), ("filename", "/etc/passwd"),
                                                    ("rw", "write")], "any", []),
        ("directory=ALLOWED filename=new", base + [("rw", "write"), ("directory", a), ("filename", "new")],
         "allow", [a + "/new"]),
        ("no filename in ALLOWED (cwd)", base + [("rw", "write")], "allow", [a + "/j.0.0"]),
        ("unlink=1 in ALLOWED", base + [("rw", "write"), ("directory", a), ("filename", "gone"),
                                        ("unlink", "1")], "allow", []),
    ]


def serve_policy(rqlock, top, box, policy, tag):
    """A fresh sandbox and its server: "default" (built-ins only, started in
    cwd/) or "allow" (--allow ALLOWED/, started inside ALLOWED); the server
    and the directory where changes are allowed (None: nowhere)."""
    box.reset()
    if policy == "allow":
        return Server(rqlock, top, box.allowed, ["--allow", box.allowed + "/"], tag + "-allow"), box.allowed
    return Server(rqlock, top, box.cwd, [], tag + "-default"), None


def check_table(rqlock, top):
    box = Sandbox(top)
    bad = 0
    for policy in ("default", "allow"):
        srv, allow_dir = serve_policy(rqlock, top, box, policy, "table")
        try:
            for name, opts, inc in table_cases(box):
                if policy == "allow" and name.startswith("no filename"):
                    continue	# the working directory is ALLOWED here: allowed_cases() runs it
                before = box.snapshot()
                rc, out = run_job(srv, top, job_text(opts, inc))
                after = box.snapshot()
                b = breaches(before, after, box, None)
                if policy == "allow" and "ALLOWED" in name and "log" not in name:
                    b = breaches(before, after, box, allow_dir)
                refused = rc != 0 and "rqlock server:" in out
                # logs are refused even inside ALLOWED: never at a client's path
                if b or not refused:
                    bad += 1
                    print("FAIL [%s] %s: rc=%d refused=%s breaches=%s\n%s" % (policy, name, rc, refused, b, out))
                else:
                    line = [l for l in out.splitlines() if "rqlock server:" in l][0]
                    print("ok   [%s] %s: %s" % (policy, name, line.strip()))
                if not srv.alive():
                    print("FAIL [%s] server died after %s" % (policy, name))
                    return 1
            for name, opts, where, made in allowed_cases(box):
                if where == "allow" and policy != "allow":
                    continue
                before = box.snapshot()
                rc, out = run_job(srv, top, job_text(opts))
                after = box.snapshot()
                b = breaches(before, after, box, allow_dir)
                missing = [m for m in made if m not in after]
                if rc != 0 or b or missing:
                    bad += 1
                    print("FAIL [%s] allowed case %s: rc=%d breaches=%s missing=%s\n%s" %
                          (policy, name, rc, b, missing, out))
                else:
                    print("ok   [%s] allowed: %s" % (policy, name))
        finally:
            srv.stop()
    return 1 if bad else 0


def random_job(rng, box):
    """One job from the path-bearing options, aimed at ALLOWED, OUT and the working directory."""
    a, o, r = box.allowed, box.out, box.root
    names = ["f", "existing", "victim", "new%d" % rng.randrange(4), "../out/x", "../out/existing",
             "../allowed/y", "sub/z", a + "/existing", a + "/n", a + "/link_out", a + "/dangling",
             a + "/link_dir/existing", a + "/../out/victim", o + "/victim", o + "/new", r + "/cwd/victim",
             "/", ".", ".."]
    specs = ["@null0", "@ram0,size=1m", "@null0,irqmode=1", "@hdd0,file=" + rng.choice([a + "/h.img", o + "/h.img"]),
             "@fault0,eio_every=1000,of=" + rng.choice(["@null0", a + "/existing", o + "/victim", "victim"])]
    dirs = [a, o, a + ":" + o, o + ":" + a, a + "/../out", "../out", "../allowed", a + "/link_dir", r + "/cwd", ".",
            "@x", "@null0"]
    opts = [("size", rng.choice(["4k", "16k"])), ("bs", "4k"),
            ("rw", rng.choice(["read", "write", "randwrite", "rw"]))]
    if rng.random() < 0.5:
        n = rng.choice([1, 1, 2])
        opts.append(("filename", ":".join(rng.choice(names + specs) for _ in range(n))))
    if rng.random() < 0.4:
        opts.append(("directory", rng.choice(dirs)))
    if rng.random() < 0.3:
        opts.append(("filename_format", rng.choice(["x", "../out/x", "existing", "victim", "$jobname.$filenum",
                                                    o + "/ff", "../out/$jobnum", "link_out", "dangling"])))
    if rng.random() < 0.3:
        opts.append(("nrfiles", str(rng.choice([1, 2, 3]))))
    if rng.random() < 0.2:
        opts.append(("numjobs", str(rng.choice([1, 2]))))
    if rng.random() < 0.3:
        opts.append(("unlink", "1"))
    if rng.random() < 0.05:
        opts.append(("unlink_each_loop", "1"))
    if rng.random() < 0.05:
        opts.append(("opendir", rng.choice([a, o])))
    if rng.random() < 0.1:
        opts.append(("ioengine", "null"))
    for lo in ("write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log"):
        if rng.random() < 0.08:
            opts.append((lo, rng.choice([o + "/clob", a + "/lg", "lg", "../out/lg"])))
    if rng.random() < 0.1:
        opts.append(("per_job_logs", rng.choice(["0", "1"])))
    include = rng.choice([None] * 12 + [o + "/inc.fio", a + "/inc.fio", "../out/inc.fio", a + "/inc2.fio"])
    rng.shuffle(opts)
    return job_text(opts, include)


def check_random(rqlock, top, n, seed):
    print("server_sandbox random: %d cases, seed %d (rerun: %s %s random %d %d)" %
          (n, seed, sys.argv[0], rqlock, n, seed))
    rng = random.Random(seed)
    box = Sandbox(top)
    bad = ran = refused = 0
    half = n // 2
    for policy, count in (("default", half), ("allow", n - half)):
        srv, allow_dir = serve_policy(rqlock, top, box, policy, "random")
        try:
            for i in range(count):
                text = random_job(rng, box)
                before = box.snapshot()
                rc, out = run_job(srv, top, text)
                after = box.snapshot()
                b = breaches(before, after, box, allow_dir)
                if rc == 0:
                    ran += 1
                elif "rqlock server:" in out:
                    refused += 1
                if b:
                    bad += 1
                    print("BREACH [%s] case %d: %s\njob:\n%s\nfio said:\n%s" % (policy, i, b, text, out))
                    box.reset()
                if not srv.alive():
                    print("FAIL [%s] case %d: the server died; job:\n%s" % (policy, i, text))
                    return 1
                if i % 50 == 49:
                    box.reset()	# keep ALLOWED small; the next snapshot starts afresh
        finally:
            srv.stop()
    print("server_sandbox random: %d cases, %d ran, %d refused by the server, %d breaches (seed %d)" %
          (n, ran, refused, bad, seed))
    return 1 if bad else 0


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    rqlock = os.path.abspath(sys.argv[1])
    # a timeout's SIGTERM still stops the servers and removes the sandbox (the finally blocks)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if not have_fio():
        skip("fio 3.33 is not installed (the client under test)")
    top = tempfile.mkdtemp(prefix="rqlock-sandbox.")
    try:
        if sys.argv[2] == "table":
            return check_table(rqlock, top)
        n = int(sys.argv[3]) if len(sys.argv) > 3 else 100
        seed = int(sys.argv[4]) if len(sys.argv) > 4 else int(time.time())
        return check_random(rqlock, top, n, seed)
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
