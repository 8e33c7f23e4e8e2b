"""store: locating things in the source tree and installed, the run store's files."""
import json
import os
import shutil
import subprocess
import sys

from rqlock import store
from tests.helpers import SRC, TmpDir, make_run


class TestWhere(TmpDir):
    def test_source_tree(self):
        self.assertEqual(store.source_top(), SRC)
        self.assertEqual(store.jobs_dir(), os.path.join(SRC, "jobs"))
        os.environ.pop("RQLOCK_RUNS", None)
        self.assertEqual(store.runs_root(), os.path.join(SRC, "results", "runs"))
        os.environ["RQLOCK_RUNS"] = self.tmp
        self.assertEqual(store.runs_root(), self.tmp)

    def test_find_rqlock(self):
        os.environ.pop("RQLOCK", None)
        self.assertEqual(store.find_rqlock(), os.path.join(SRC, "build", "rqlock"))
        os.environ["RQLOCK"] = "/x/rqlock"
        self.assertEqual(store.find_rqlock(), "/x/rqlock")
        self.assertEqual(store.find_rqlock("rel/rq"), os.path.abspath("rel/rq"))

    def test_installed_layout(self):
        # share/rqlock/python/rqlock next to share/rqlock/jobs, no source tree
        share = self.path("usr", "share", "rqlock")
        shutil.copytree(os.path.join(SRC, "python", "rqlock"), os.path.join(share, "python", "rqlock"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        os.makedirs(os.path.join(share, "jobs"))
        code = "from rqlock import store; print(store.source_top()); print(store.jobs_dir()); print(store.runs_root())"
        env = dict(os.environ, PYTHONPATH=os.path.join(share, "python"))
        env.pop("RQLOCK_RUNS", None)
        p = subprocess.run([sys.executable, "-c", code], env=env, cwd=self.tmp, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split("\n")[:3], ["None", os.path.join(share, "jobs"),
                                                    os.path.join(os.path.realpath(self.tmp), "results", "runs")])

    def test_rel(self):
        self.assertEqual(store.rel(os.path.join(SRC, "jobs", "demo.fio")), "jobs/demo.fio")
        self.assertEqual(store.rel("/etc/passwd"), "/etc/passwd")


class TestRuns(TmpDir):
    def test_resolve_run(self):
        d = make_run(self.tmp, "r1", [{"mode": "global", "drives": 1, "workers": 1, "iops": 5}])
        self.assertEqual(store.resolve_run(d), d)
        os.environ["RQLOCK_RUNS"] = self.tmp
        self.assertEqual(store.resolve_run("r1"), d)
        with self.assertRaises(store.StoreError) as e:
            store.resolve_run("nope")
        self.assertIn("no run nope", str(e.exception))

    def test_read_summary_skips_failed(self):
        d = make_run(self.tmp, "r", [{"mode": "global", "drives": 1, "workers": 1, "iops": 5},
                                     {"mode": "mq", "drives": 1, "workers": 1, "job": "", "repeats": 0,
                                      "status": "failed: killed by SIGKILL"}])
        self.assertEqual([r["mode"] for r in store.read_summary(d)], ["global"])
        self.assertEqual(len(store.read_summary(d, finished_only=False)), 2)
        rows, mans = store.load_runs([d])
        self.assertEqual(list(mans), ["r"])
        self.assertEqual(len(rows), 1)

    def test_missing_files_are_store_errors(self):
        os.makedirs(self.path("empty"))
        with self.assertRaises(store.StoreError):
            store.load_manifest(self.path("empty"))
        with self.assertRaises(store.StoreError):
            store.read_summary(self.path("empty"))

    def test_atomic_files(self):
        os.makedirs(self.path("json"))
        store.save_manifest(self.tmp, {"id": "x"})
        self.assertEqual(store.load_manifest(self.tmp), {"id": "x"})
        self.assertEqual(store.stale_tmp_files(self.tmp), [])
        open(self.path("json", "a-r1.json.tmp"), "w").close()
        open(self.path("manifest.json.tmp"), "w").close()
        self.assertEqual(store.stale_tmp_files(self.tmp),
                         sorted([self.path("json", "a-r1.json.tmp"), self.path("manifest.json.tmp")]))

    def test_load_json_skips_warnings(self):
        p = self.write("j.json", "fio: warning: something\n" + json.dumps({"a": 1}))
        self.assertEqual(store.load_json(p), {"a": 1})
        p = self.write("bad.json", "no json here")
        with self.assertRaises(ValueError):
            store.load_json(p)
        # a fio client's "<host> ..." lines from its servers, one with a brace
        text = "<vm> j: (g=0): rw=read {x}\n<vm> Starting 1 process\n" + json.dumps({"a": [1]}, indent=1)
        self.assertEqual(store.parse_json_text(text), {"a": [1]})
        with self.assertRaises(ValueError):
            store.parse_json_text("<vm> {\n{\n\"a\": ")

    def test_point_paths(self):
        j, m, l = store.point_paths("/r", "x.global.ttas.d1.w1", 2)
        self.assertEqual((j, m, l), ("/r/json/x.global.ttas.d1.w1-r2.json",
                                     "/r/json/x.global.ttas.d1.w1-r2.meta.json",
                                     "/r/log/x.global.ttas.d1.w1-r2.stderr"))
