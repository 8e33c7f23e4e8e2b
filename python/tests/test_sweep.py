"""sweep: job files, the points of a manifest, commands, summary.csv."""
import argparse
import csv
import json
import os
import shutil

from rqlock import sweep
from tests.helpers import SRC, TmpDir, fio_job

MULTI = os.path.join(SRC, "jobs", "multi-drive-scaling.fio")


def args(**kw):
    d = dict(quiet_wait=0, quiet_threshold=0.2, retry_failed=False)
    d.update(kw)
    return argparse.Namespace(**d)


class TestJobFiles(TmpDir):
    def test_job_info(self):
        i = sweep.job_info(MULTI)
        self.assertEqual(i["stem"], "multi-drive-scaling")
        self.assertEqual(sorted(i["drive_secs"]), list(range(8)))
        self.assertIn("QD", i["refs"])
        self.assertIn(("DISK", 3, "DISK3"), i["devs"])

    def test_sections_and_drive_axis(self):
        i = sweep.job_info(self.write("a.fio", "[global]\nbs=4k\n[setup]\nrw=read\n[drive0]\n[drive1-x]\n[drive2]\n"))
        self.assertEqual(sweep.selected_sections(i, 2), ["setup", "drive0", "drive1-x"])
        self.assertEqual(sweep.drive_axis(i, [1, 2, 4]), [1, 2])
        flat = sweep.job_info(self.write("b.fio", "[a]\nfilename=${DISK0}:${DISK2}\n"))
        self.assertIsNone(sweep.selected_sections(flat, 1))
        self.assertEqual(sweep.drive_axis(flat, [1, 2, 4]), [3])

    def test_runtime_and_hms(self):
        self.assertEqual(sweep.runtime_str(2.0), "2")
        self.assertEqual(sweep.runtime_str(0.5), "500ms")
        self.assertEqual(sweep.hms(65), "1:05")
        self.assertEqual(sweep.hms(3725), "1:02:05")


class TestPoints(TmpDir):
    def manifest(self, **axes):
        os.makedirs(self.path("jobs"))
        shutil.copy(MULTI, self.path("jobs"))
        ax = {"drives": [1, 2], "workers": [1, 2], "vars": {"QD": ["1", "16"]}, "runtime": 1, "repeat": 2,
              "no_pin": False, "stall_timeout": 60}
        ax.update(axes)
        return {"id": "t", "jobfiles": [{"copy": "multi-drive-scaling.fio"}], "modes": ["global", "mq"],
                "lock_types": ["ttas", "mcs"], "modes_unavailable": {"mq/mcs": "no"}, "axes": ax,
                "devices": {"DISK": "@null{n},irqmode=1"}, "rqlock": {"path": "/bin/rqlock"}}

    def test_points_skip_unavailable(self):
        man = self.manifest()
        pts = sweep.Sweep(args(), self.tmp, man).points()
        # 2 QD x 2 W x 2 D x (global: 2 types + mq: 1)
        self.assertEqual(len(pts), 24)
        self.assertEqual(len({p["id"] for p in pts}), 24)
        self.assertFalse([p for p in pts if p["mode"] == "mq" and p["type"] == "mcs"])
        self.assertIn("multi-drive-scaling.global.ttas.d2.w1.QD16", {p["id"] for p in pts})

    def test_env_and_command(self):
        man = self.manifest()
        sw = sweep.Sweep(args(), self.tmp, man)
        pt = [p for p in sw.points() if p["id"] == "multi-drive-scaling.mq.ttas.d2.w2.QD1"][0]
        env = sw.env_for(pt)
        self.assertEqual((env["DISK0"], env["DISK1"], env["NDRIVES"], env["WORKERS"], env["QD"], env["RUNTIME"]),
                         ("@null0,irqmode=1", "@null1,irqmode=1", "2", "2", "1", "1"))
        self.assertEqual(env["DISKS"], "@null0,irqmode=1:@null1,irqmode=1")
        cmd = sw.command(pt, "/o.json")
        self.assertEqual(cmd[:4], ["/bin/rqlock", "run", "--lock=mq", "--lock-type=ttas"])
        self.assertIn("--workers=2", cmd)
        self.assertEqual(cmd[-5:], ["--section", "drive0", "--section", "drive1",
                                    os.path.join(self.tmp, "jobs", "multi-drive-scaling.fio")])


class TestSummary(TmpDir):
    def test_medians_failures_and_columns(self):
        man = TestPoints.manifest(self, drives=[1], workers=[1], vars={"QD": ["16"]}, repeat=3)
        man["modes"], man["lock_types"] = ["global"], ["ttas"]
        os.makedirs(self.path("json"))
        sw = sweep.Sweep(args(), self.tmp, man)
        (pt,) = sw.points()
        for rep, iops in ((1, 100.0), (2, 300.0)):
            j, m, _ = sw.paths(pt, rep)
            with open(j, "w") as f:
                json.dump({"jobs": [fio_job("drive0", read_iops=iops)],
                           "rqlock": {"locks": [{"acquisitions": 10, "contentions": 1}], "queues": []}}, f)
            with open(m, "w") as f:
                json.dump({"ok": True, "bg_cpu": 0.1 * rep}, f)
        with open(sw.paths(pt, 3)[1], "w") as f:
            json.dump({"ok": False, "exit": -9, "why": "killed by SIGKILL"}, f)
        sweep.write_summary(self.tmp, man, [pt])
        with open(self.path("summary.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 1)
        r = rows[0]
        self.assertEqual((r["iops"], r["iops_min"], r["iops_max"], r["repeats"]), ("200", "100", "300", "2"))
        self.assertEqual((r["contention_share"], r["bg_cpu"], r["var_QD"]), ("0.1", "0.15", "16"))
        self.assertEqual(r["status"], "ok, 1 failed")
        # every repeat failed: one row saying why
        for rep in (1, 2):
            os.unlink(sw.paths(pt, rep)[1])
        sweep.write_summary(self.tmp, man, [pt])
        with open(self.path("summary.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([(r["job"], r["status"]) for r in rows], [("", "failed: killed by SIGKILL")])


class TestScaling(TmpDir):
    def test_workers_axis(self):
        self.assertEqual(sweep.scaling_workers(1), [1])
        self.assertEqual(sweep.scaling_workers(2), [1, 2])
        self.assertEqual(sweep.scaling_workers(6), [1, 2, 4, 6])
        self.assertEqual(sweep.scaling_workers(64), [1, 2, 4, 8, 16, 32, 64])
        self.assertEqual(sweep.scaling_workers(96), [1, 2, 4, 8, 16, 32, 64])

    def test_notes(self):
        n = sweep.scaling_notes(2, [1, 2], True)
        self.assertEqual(len(n), 1)
        self.assertIn("cannot show", n[0])
        self.assertIn("ticket-lock collapse", n[0])
        self.assertEqual(sweep.scaling_notes(64, sweep.scaling_workers(64), True), [])
        over = sweep.scaling_notes(2, [1, 4], False)
        self.assertEqual(len(over), 1)
        self.assertTrue(over[0].startswith("warning: W=4 workers on 2 CPUs"), over)
        self.assertIn("W stops at 64", " ".join(sweep.scaling_notes(128, [64], True)))

    def test_lock_types_from_the_binary(self):
        fake = self.write("rqlock", "#!/bin/sh\necho \"rqlock: --lock-type=?: unknown lock type (ttas|clh|mcs)\" >&2\n"
                                    "exit 2\n")
        os.chmod(fake, 0o755)
        self.assertEqual(sweep.lock_types_of(fake), ["ttas", "clh", "mcs"])
        self.assertEqual(sweep.lock_types_of(self.path("missing")), ["ttas", "ticket", "mcs", "mutex"])

    def test_pairs_and_per_drive(self):
        os.makedirs(self.path("jobs"))
        shutil.copy(os.path.join(SRC, "jobs", "lock-scaling.fio"), self.path("jobs"))
        man = {"id": "s", "jobfiles": [{"copy": "lock-scaling.fio"}], "modes": ["per-queue"],
               "lock_types": ["ttas"], "devices": {"DISK": "@null{n}"}, "rqlock": {"path": "rq"},
               "axes": {"drives": [1, 2, 4], "workers": [1, 2, 4], "vars": {"QD": ["16"]}, "runtime": 1,
                        "repeat": 1, "no_pin": False, "stall_timeout": 60, "pairs": "D=1 or D=W"}}
        sw = sweep.Sweep(args(), self.tmp, man)
        pts = sw.points()
        self.assertEqual(sorted((p["drives"], p["workers"]) for p in pts), [(1, 1), (1, 2), (1, 4), (2, 2), (4, 4)])
        per = {(p["drives"], p["workers"]): sw.env_for(p)["PER_DRIVE"] for p in pts}
        self.assertEqual(per, {(1, 1): "1", (1, 2): "2", (1, 4): "4", (2, 2): "1", (4, 4): "1"})
        info = sweep.job_info(self.path("jobs", "lock-scaling.fio"))
        self.assertEqual(len(info["drive_secs"]), sweep.SCALING_MAX_W)
        # the ${DISKn} in its comments is not a reference
        self.assertNotIn("DISKn", info["refs"])
