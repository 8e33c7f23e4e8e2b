"""Shared fixtures of the package's unit tests."""
import json
import os
import shutil
import tempfile
import unittest

from rqlock import metrics

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fio_job(name="j", read_iops=1000.0, write_iops=0.0, lat=True, p50=10000, p99=50000, p999=90000,
            max_ns=120000, groupid=0, runtime_ms=1000):
    """A job of fio's JSON as rqlock and fio write it, the fields the metrics read."""
    pc = {"50.000000": p50, "99.000000": p99, "99.900000": p999}
    rd = {"iops": read_iops, "bw_bytes": read_iops * 4096, "total_ios": int(read_iops),
          "clat_ns": {"percentile": dict(pc)}, "lat_ns": {"N": int(read_iops), "max": max_ns}}
    if lat:
        rd["lat_ns"]["percentile"] = {k: v + 1000 for k, v in pc.items()}
    wr = {"iops": write_iops, "bw_bytes": write_iops * 4096, "total_ios": int(write_iops),
          "clat_ns": {"percentile": {k: 2 * v for k, v in pc.items()}}, "lat_ns": {"N": 0}}
    return {"jobname": name, "groupid": groupid, "job_runtime": runtime_ms, "read": rd, "write": wr,
            "trim": {"iops": 0, "bw_bytes": 0, "total_ios": 0}}


class TmpDir(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rqlock-pytest.")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self._env = dict(os.environ)
        self.addCleanup(self._restore_env)

    def _restore_env(self):
        os.environ.clear()
        os.environ.update(self._env)

    def path(self, *p):
        return os.path.join(self.tmp, *p)

    def write(self, rel, text):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
        return p


def make_run(root, run_id, rows, machine=None, host_axis=False):
    """A run directory with a manifest and a summary.csv of the given rows
    (dicts of summary.csv columns; the rest are left empty).  Without
    host_axis, the columns of a store written before the host axis."""
    d = os.path.join(root, run_id)
    os.makedirs(os.path.join(d, "json"), exist_ok=True)
    man = {"id": run_id, "created": "2026-12-03T17:00:00+00:00", "git": {"revision": "abc", "dirty": False},
           "machine": machine or {"hostname": "h", "cpus": 2, "cpu_model": "x", "kernel": "6"},
           "modes": sorted({r["mode"] for r in rows}), "axes": {"runtime": 1, "repeat": 1, "vars": {}},
           "devices": {"DISK": "@null{n}"}, "notes": []}
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(man, f)
    cols = ["run", "point", "jobfile", "job", "mode", "primitive", "drives", "workers"] + \
        (["host", "cores"] if host_axis else []) + ["repeats"] + \
        metrics.summary_columns() + ["status"]
    with open(os.path.join(d, "summary.csv"), "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            r = dict({"run": run_id, "point": "p", "job": "j", "primitive": "ttas", "repeats": 1,
                      "status": "ok"}, **r)
            f.write(",".join(str(r.get(c, "")) for c in cols) + "\n")
    return d
