"""fleet: --clients parsing, job files resolved for the hosts, a fleet
point's JSON split per host, and runs from hosts with different core counts
merged by compare and plot (synthetic runs; the live path is
tests/test_sweep_fleet.sh)."""
import contextlib
import csv
import io
import json
import os
import shutil

from rqlock import compare, fleet, plot, store
from tests.helpers import TmpDir, fio_job, make_run


def read(path):
    with open(path) as f:
        return f.read()


class TestClients(TmpDir):
    def test_split_keeps_ports_with_their_host(self):
        self.assertEqual(fleet.split_hosts("sock:/a,localhost,8766,b=ip:127.0.0.1,9000,sock:/c,ip6:::1,1"),
                         ["sock:/a", "localhost,8766", "b=ip:127.0.0.1,9000", "sock:/c", "ip6:::1,1"])

    def test_names_and_addresses(self):
        got = fleet.parse_clients(["alpha=sock:/run/a.sock,ip:127.0.0.1,8765", "host2,9000"])
        self.assertEqual(got, [{"name": "alpha", "addr": "sock:/run/a.sock"},
                               {"name": "ip:127.0.0.1,8765", "addr": "ip:127.0.0.1,8765"},
                               {"name": "host2,9000", "addr": "host2,9000"}])
        self.assertEqual(fleet.parse_addr("localhost")[1:], ("localhost", 8765))
        self.assertEqual(fleet.addr_key("sock:/x/y.sock"), ("/x/y.sock", None))
        self.assertEqual(fleet.addr_key("ip:127.0.0.1,9"), ("127.0.0.1", 9))

    def test_bad_values(self):
        for v, why in (("", "empty list"), ("sock:/a,,sock:/b", "an empty entry"),
                       ("ftp:x", "unknown address kind ftp:"), ("sock:rel", "absolute path"),
                       ("ip:127.0.0.1,0", "not 1..65535"), ("ip:127.0.0.1,99999", "not 1..65535"),
                       ("a b", "expected HOST"), ("x=", "no address"), ("sock:/a,n=sock:/a", "given twice"),
                       ("sock:/" + "x" * 120, "longer than 107"), ("b@d=sock:/a", "host name")):
            with self.assertRaises(fleet.FleetError, msg=v) as e:
                fleet.parse_clients([v])
            self.assertIn(why, str(e.exception), v)

    def test_probe_unreachable_names_the_address(self):
        with self.assertRaises(fleet.FleetError) as e:
            fleet.probe("sock:" + self.path("none.sock"))
        self.assertIn("none.sock: cannot connect", str(e.exception))

    def test_crc16_arc(self):
        # CRC-16/ARC's check value ("123456789" -> 0xBB3D)
        self.assertEqual(fleet.crc16(b"123456789"), 0xBB3D)


JOB = """; a comment with ${DISK9}
[global]
ioengine=io_uring
direct=1
runtime=${RUNTIME}

[drive0]
filename=${DISK0}

[drive1]
filename=${DISK1}
"""


class TestResolve(TmpDir):
    def test_vars_and_sections(self):
        t = fleet.resolve_job(JOB, {"DISK0": "@null0", "DISK1": "@null1", "RUNTIME": "1"}, ["drive0"])
        self.assertIn("filename=@null0", t)
        self.assertNotIn("[drive1]", t)
        self.assertNotIn("@null1", t)
        self.assertIn("; a comment with ${DISK9}", t)     # comments are left as written
        self.assertIn("runtime=1", t)

    def test_null_engine(self):
        t = fleet.resolve_job(JOB, {"RUNTIME": "1"}, None, null_engine=True)
        live = [x for x in t.splitlines() if not x.startswith(";")]
        self.assertFalse([x for x in live if x.startswith(("filename=", "direct="))], live)
        self.assertEqual({x for x in live if x.startswith("ioengine=")}, {"ioengine=null"})
        t = fleet.resolve_job("[j]\nfilename=/dev/x\nsize=1m\n", {}, None, null_engine=True)
        self.assertTrue(t.split("\n")[1:3] == ["[global]", "ioengine=null"], t)


def client_json(hosts, desc="rqlock lock=mq lock-type=ttas workers=2 hctx_lock:acq=1,con=0"):
    cs = []
    for h, port, iops in hosts:
        j = fio_job("drive0", read_iops=iops)
        j.update(hostname=h, port=port, desc=desc)
        cs.append(j)
    allc = fio_job("All clients", read_iops=sum(i for _, _, i in hosts))
    return {"client_stats": cs + [allc]}


class TestSplit(TmpDir):
    servers = [{"name": "a", "addr": "sock:/s/a.sock"}, {"name": "c", "addr": "ip:127.0.0.1,9000"}]

    def test_split_by_host(self):
        doc = client_json([("/s/a.sock", 8765, 100.0), ("127.0.0.1", 9000, 300.0)])
        got = fleet.split_by_host(doc, self.servers)
        self.assertEqual({k: [j["read"]["iops"] for j in v["jobs"]] for k, v in got.items()},
                         {"a": [100.0], "c": [300.0]})
        with self.assertRaises(ValueError) as e:
            fleet.split_by_host(client_json([("/s/a.sock", 8765, 1.0)]), self.servers)
        self.assertIn("no results from c", str(e.exception))
        # the same host on another port is another server
        with self.assertRaises(ValueError):
            fleet.split_by_host(client_json([("/s/a.sock", 8765, 1.0), ("127.0.0.1", 9001, 1.0)]), self.servers)

    def test_check_desc(self):
        doc = client_json([("/s/a.sock", 8765, 1.0), ("127.0.0.1", 9000, 1.0)])
        self.assertIsNone(fleet.check_desc(doc, self.servers, "mq", "ttas", 2))
        why = fleet.check_desc(doc, self.servers, "global", "ttas", 2)
        self.assertIn("a ran lock=mq lock-type=ttas workers=2, the point is lock=global", why)
        doc["client_stats"][0]["desc"] = "something else"
        self.assertIn("a ran lock=?", fleet.check_desc(doc, self.servers, "mq", "ttas", 2))


def two_runs(tmp):
    """An older local run (2 CPUs, no host column) and a fleet run on a
    host with 8 cores."""
    old = make_run(tmp, "old", [{"mode": "mq", "jobfile": "m", "job": "drive0", "drives": 2, "workers": w,
                                 "iops": 1000 * w} for w in (1, 2)])
    new = make_run(tmp, "new", [{"mode": "mq", "jobfile": "m", "job": "drive0", "drives": d, "workers": w,
                                 "host": "big", "cores": 8, "iops": 900 * w + d}
                                for w in (2, 8) for d in (1, 2)], host_axis=True)
    return old, new


class TestMerge(TmpDir):
    def test_old_store_is_local(self):
        old, _ = two_runs(self.tmp)
        rows, mans = store.load_runs([old])
        self.assertEqual({(r["host"], r["cores"]) for r in rows}, {("local", "2")})
        with self.assertRaises(store.StoreError):
            store.load_runs([old, old])

    def test_compare_one_curve(self):
        old, new = two_runs(self.tmp)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(compare.main([old, new], prog="compare"), 0)
        text = out.getvalue()
        self.assertIn("mq on big", text)
        self.assertIn("mq on local", text)
        self.assertIn("hosts side by side, IOPS against workers per core", text)
        # W/cores: local W=1,2 of 2 cores; big W=2,8 of 8 (its most drives: D=2)
        self.assertRegex(text, r"mq on local +local +2 +1 +0\.50 +2 +1k")
        self.assertRegex(text, r"mq on big +big +8 +2 +0\.25 +2 +1\.8k")
        self.assertRegex(text, r"mq on big +big +8 +8 +1\.00 +2 +7\.2k")

    def test_plot_one_curve(self):
        if not shutil.which("gnuplot"):
            self.skipTest("gnuplot is not installed")
        old, new = two_runs(self.tmp)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(plot.main([old, new, "--out", self.path("p")], prog="plot"), 0)
        dat = read(self.path("p", "m-fleet-scaling.dat"))
        gp = read(self.path("p", "m-fleet-scaling.gp"))
        self.assertIn("mq on big", gp)
        self.assertIn("mq on local", gp)
        self.assertIn("workers / cores", gp)
        blocks = [b for b in dat.split("\n\n\n") if b.startswith("# mq")]
        xs = {b.splitlines()[0]: [float(x.split()[0]) for x in b.splitlines()[1:]] for b in blocks}
        self.assertEqual(xs, {"# mq on big (host big)": [0.25, 1.0], "# mq on local (host local)": [0.5, 1.0]})
        self.assertTrue(os.path.getsize(self.path("p", "m-fleet-scaling.svg")) > 0)


class TestFleetPoints(TmpDir):
    """The points and commands of a fleet manifest (what discover_fleet found)."""

    def manifest(self, fio_devices=None):
        from tests.test_sweep import TestPoints
        man = TestPoints.manifest(self, drives=[1, 2], workers=[1, 2], vars={"QD": ["4"]})
        sv = [{"name": "a", "addr": "sock:/s/a.sock", "mode": "per-queue", "primitive": "ttas", "workers": 1,
               "cores": 2},
              {"name": "b", "addr": "sock:/s/b.sock", "mode": "per-queue", "primitive": "ttas", "workers": 1,
               "cores": 4},
              {"name": "b", "addr": "sock:/s/b-mq.sock", "mode": "mq", "primitive": "ttas", "workers": 2,
               "cores": 4}]
        fio = [{"name": "f", "addr": "ip:127.0.0.1,8765", "cores": 4}]
        man.update(modes=["per-queue", "mq", fleet.FIO_KERNEL if fio_devices else fleet.FIO_NULL],
                   lock_types=["ttas"], modes_unavailable={}, fio={"path": "/usr/bin/fio"},
                   fleet={"servers": sv, "fio_servers": fio, "fio_devices": fio_devices,
                          "fio_mode": fleet.FIO_KERNEL if fio_devices else fleet.FIO_NULL})
        return man

    def test_groups_and_baseline(self):
        from rqlock import sweep
        from tests.test_sweep import args
        sw = sweep.Sweep(args(), self.tmp, self.manifest())
        pts = sw.points()
        got = sorted((p["mode"], p["workers"], p["drives"], tuple(s["addr"] for s in p["servers"])) for p in pts)
        self.assertEqual(got, sorted(
            [("per-queue", 1, d, ("sock:/s/a.sock", "sock:/s/b.sock")) for d in (1, 2)] +
            [("mq", 2, d, ("sock:/s/b-mq.sock",)) for d in (1, 2)] +
            [("fio-null", w, d, ("ip:127.0.0.1,8765",)) for w in (1, 2) for d in (1, 2)]))
        pq = next(p for p in pts if p["mode"] == "per-queue" and p["drives"] == 2)
        cmd = sw.command(pq, "/unused")
        job = os.path.join(self.tmp, "jobs", "points", pq["id"] + ".fio")
        self.assertEqual(cmd, ["/usr/bin/fio", "--output-format=json", "--client=sock:/s/a.sock", job,
                               "--client=sock:/s/b.sock", job])
        text = read(job)
        self.assertIn("filename=@null0,irqmode=1", text)
        self.assertIn("filename=@null1,irqmode=1", text)
        self.assertIn("iodepth=4", text)
        self.assertNotIn("[drive2]", text)
        fn = next(p for p in pts if p["mode"] == "fio-null" and p["drives"] == 1 and p["workers"] == 2)
        sw.command(fn, "/unused")
        live = [x for x in read(os.path.join(self.tmp, "jobs", "points", fn["id"] + ".fio")).splitlines()
                if not x.startswith(";")]
        self.assertIn("ioengine=null", live)
        self.assertFalse([x for x in live if x.startswith("filename=")])

    def test_fio_devices(self):
        from rqlock import sweep
        from tests.test_sweep import args
        sw = sweep.Sweep(args(), self.tmp, self.manifest({"DISK": "/dev/nvme{n}n1"}))
        fk = next(p for p in sw.points() if p["mode"] == "fio-kernel" and p["drives"] == 2)
        sw.command(fk, "/unused")
        text = read(os.path.join(self.tmp, "jobs", "points", fk["id"] + ".fio"))
        self.assertIn("filename=/dev/nvme0n1", text)
        self.assertIn("filename=/dev/nvme1n1", text)
        self.assertIn("ioengine=io_uring", text)

    def test_summary_rows_per_host(self):
        from rqlock import sweep
        from tests.test_sweep import args
        man = self.manifest()
        os.makedirs(self.path("json"))
        sw = sweep.Sweep(args(), self.tmp, man)
        pt = next(p for p in sw.points() if p["mode"] == "per-queue" and p["drives"] == 1)
        jp, mp, _ = sw.paths(pt, 1)
        doc = client_json([("/s/a.sock", 8765, 100.0), ("/s/b.sock", 8765, 300.0)],
                          desc="rqlock lock=per-queue lock-type=ttas workers=1")
        with open(jp, "w") as f:
            f.write("<vm> some text {\n" + json.dumps(doc, indent=1))
        with open(mp, "w") as f:
            json.dump({"ok": True, "bg_cpu": None}, f)
        sweep.write_summary(self.tmp, man, [pt])
        with open(self.path("summary.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([(r["host"], r["cores"], r["iops"]) for r in rows], [("a", "2", "100"), ("b", "4", "300")])
