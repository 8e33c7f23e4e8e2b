"""report: the page of a run (sections, inline SVG, no network address), of two
runs (B / A against both runs' noise), and its bad input."""
import contextlib
import io
import json
import os
import re
import shutil
import unittest

from rqlock import report, verdict
from tests.helpers import TmpDir, make_run
from tests.test_compare import floppy_rows

# what gnuplot's svg terminal writes, cut down: the prolog, the namespaces, xlink
# references to shared markers, a clip path, and (not gnuplot's) an address in an
# attribute and in text
GNUPLOT_SVG = """<?xml version="1.0" encoding="utf-8"  standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg 
 viewBox="0 0 600 400"
 xmlns="http://www.w3.org/2000/svg"
 xmlns:xlink="http://www.w3.org/1999/xlink"
>
<!-- made by gnuplot -->
<title>Gnuplot</title>
<g id="gnuplot_canvas">
<defs><circle id='gpPt5' r='1'/><clipPath id="gpclip_1"><rect x="0" y="0" width="10" height="10"/></clipPath></defs>
<use xlink:href='#gpPt5' x='10' y='20'/>
<a xlink:href="https://example.org/x"><text>see http://example.org</text></a>
<path clip-path="url(#gpclip_1)" d="M0,0 L5,5"/>
</g>
</svg>
"""


def lockstat_doc():
    """A point's JSON with rqlock.lockstat: io_request_lock, where a disk waited on the floppy."""
    return {"jobs": [], "rqlock": {"lockstat": {"enabled": 1, "classes": [
        {"name": "io_request_lock", "locks": 1, "acquisitions": 2000, "contentions": 4,
         "wait_ns": {"samples": 4, "max": 200000000, "total": 400000000},
         "hold_ns": {"samples": 30, "max": 279, "total": 2400},
         "sites": [{"site": "queues/legacy.c:69", "contentions": 4}],
         "holders": [{"waiter": "@null0", "holder": "@floppy0,driver=sync", "holder_site": "queues/legacy.c:69",
                      "contentions": 4, "wait_ns": 400000000}]}]}}}


def scaling_rows(scale=1.0, spread=0.01):
    """lock-scaling points at D = 1 and D = W, W = 1, 2, three repeats each."""
    out = []
    for mode in ("global", "per-queue"):
        for d, w, v in ((1, 1, 1000), (1, 2, 1100), (2, 2, 2000)):
            v *= scale * (1.0 if mode == "per-queue" else 0.9)
            reps = [v * (1 - spread), v, v * (1 + spread)]
            out.append({"jobfile": "lock-scaling", "job": "drive0", "mode": mode, "drives": d, "workers": w,
                        "repeats": 3, "point": "lock-scaling.%s.ttas.d%d.w%d" % (mode, d, w),
                        "iops": v, "iops_min": reps[0], "iops_max": reps[2],
                        "iops_reps": ";".join("%g" % x for x in reps), "lat_p99_us": 100, "hold_ns_per_io": 200,
                        "lat_p99_us_reps": "99;100;101"})
    return out


def run_report(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = report.main(argv, prog="report")
    return rc, out.getvalue(), err.getvalue()


class TestReport(TmpDir):
    def make(self, run_id="r", scale=1.0, plots=True):
        rows = floppy_rows("global", "sync", [1500, 1650, 1700], [160000, 171000, 180000], [0.001, 0.001, 0.002],
                           [0.25, 0.26, 0.27], 0.13) + \
            floppy_rows("per-queue", "sync", [1400, 1430, 1500], [1400, 1420, 1500], [0.001, 0.001, 0.001],
                        [0.001, 0.002, 0.001], 0.09)
        for r in rows:
            r.pop("var_DRIVER")
            r["point"] = "floppy-vs-disk.%s.ttas.d1.w2" % r["mode"]
        rows += scaling_rows(scale)
        d = make_run(self.tmp, run_id, rows)
        mp = os.path.join(d, "manifest.json")
        with open(mp) as f:
            man = json.load(f)
        man["devices"] = {"DISK": "@null{n},irqmode=2,delay_us=1000,depth=2", "FLOPPY": "@floppy{n},driver=sync"}
        man["axes"].update({"repeat": 3, "drives": [1, 2], "workers": [1, 2]})
        man["jobfiles"] = [{"copy": "floppy-vs-disk.fio"}, {"copy": "lock-scaling.fio"}]
        man["lock_types"] = ["ttas"]
        man["notes"] = ["a note naming https://example.org"]
        with open(mp, "w") as f:
            json.dump(man, f)
        os.makedirs(os.path.join(d, "jobs"))
        for jf, q in (("floppy-vs-disk", "does one slow floppy stall every disk behind a global lock?"),
                      ("lock-scaling", "how each lock mode and primitive scales with CPUs.")):
            with open(os.path.join(d, "jobs", jf + ".fio"), "w") as f:
                f.write("; %s.fio - %s\n[x]\n" % (jf, q))
        for k in (1, 2, 3):
            with open(os.path.join(d, "json", "floppy-vs-disk.global.ttas.d1.w2-r%d.json" % k), "w") as f:
                json.dump(lockstat_doc(), f)
        if plots:
            os.makedirs(os.path.join(d, "plots"))
            for name in ("floppy-vs-disk", "lock-scaling-scaling", "timeline"):
                with open(os.path.join(d, "plots", name + ".svg"), "w") as f:
                    f.write(GNUPLOT_SVG)
        return d

    def test_inline_svg(self):
        s = report.inline_svg(GNUPLOT_SVG, "p7-", "floppy-vs-disk")
        self.assertTrue(s.startswith('<svg data-plot="floppy-vs-disk"'), s[:60])
        self.assertTrue(s.endswith("</svg>"))
        self.assertNotRegex(s, r"(?i)https?://")
        self.assertNotIn("xmlns", s)
        self.assertNotIn("xlink", s)
        self.assertNotIn("<?xml", s)
        self.assertNotIn("DOCTYPE", s)
        self.assertNotIn("<!--", s)
        self.assertIn("id='p7-gpPt5'", s)
        self.assertIn("href='#p7-gpPt5'", s)
        self.assertIn('url(#p7-gpclip_1)', s)
        self.assertIn("<title>floppy-vs-disk</title>", s)
        self.assertIn("see http&#58;//example.org", s)      # the text stays readable
        self.assertIsNone(report.inline_svg("<html>no svg</html>", "p-", "x"))

    def test_page(self):
        d = self.make()
        rc, out, err = run_report([d])
        self.assertEqual(rc, 0, err)
        path = os.path.join(d, "report.html")
        self.assertEqual(out, path + "\n")
        with open(path) as f:
            page = f.read()
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        # self-contained: no network address, no script or style from elsewhere
        self.assertNotRegex(page, r"(?i)https?://")
        self.assertNotRegex(page, r"(?i)<script|<link|<img|<iframe|\ssrc=|@import")
        # the header: machine, git, budget, modes, primitives, the noise measured
        for s in ("h: 2 CPUs (x)", "git revision", "abc", "budget", "1 s per point x 3 repeats", "global, per-queue",
                  "lock primitives", "ttas", "The noise this run measured", "IOPS: repeats&#x27; spread",
                  "floppy idle against idle, p99 (W=2)"):
            self.assertIn(s, page)
        # every experiment: its question, verdicts, per-point tables, plots, lockstat
        for jf in ("floppy-vs-disk", "lock-scaling"):
            self.assertIn('<section class="experiment" id="exp-%s">' % jf, page)
            self.assertIn("%s: verdicts" % jf, page)
            self.assertIn("%s: IOPS, " % jf, page)
            self.assertIn("%s: lockstat per mode" % jf, page)
        self.assertIn("What it asks: Does one slow floppy stall every disk behind a global lock?", page)
        self.assertIn("the disk with the floppy idle and busy, 2 workers", page)
        self.assertIn('<td class="v-met">met</td>', page)
        self.assertIn("lock-scaling: scaling", page)
        self.assertIn("Predicted from measured lock times", page)
        self.assertIn("[", page)        # intervals of the per-point tables
        # the plots inline, one <svg> each, ids apart
        for name in ("floppy-vs-disk", "lock-scaling-scaling", "timeline"):
            self.assertEqual(page.count('<svg data-plot="%s"' % name), 1, name)
        ids = re.findall(r"\sid='([^']+)'", page)
        self.assertEqual(len(ids), len(set(ids)), "an id twice")
        # lockstat: the class, its wait and hold, who held it
        self.assertIn("io_request_lock", page)
        self.assertIn("@null0 waited on @floppy0,driver=sync (queues/legacy.c:69): 400 ms", page)
        self.assertIn("80 ns", page)       # hold mean 2400 / 30: in ns, not 0 us
        self.assertIn("a note naming https&#58;//example.org", page)
        # the run is not changed otherwise
        self.assertEqual(sorted(os.listdir(d)), ["jobs", "json", "manifest.json", "plots", "report.html",
                                                 "summary.csv"])

    def test_output_option(self):
        d = self.make()
        rc, out, _ = run_report(["--output", self.path("x.html"), d])
        self.assertEqual((rc, out), (0, self.path("x.html") + "\n"))
        self.assertFalse(os.path.exists(os.path.join(d, "report.html")))

    @unittest.skipUnless(shutil.which("gnuplot"), "gnuplot is not installed")
    def test_plots_drawn_when_missing(self):
        d = self.make(plots=False)
        rc, _, err = run_report([d])
        self.assertEqual(rc, 0, err)
        with open(os.path.join(d, "report.html")) as f:
            page = f.read()
        self.assertIn('<svg data-plot="lock-scaling-scaling"', page)
        self.assertNotRegex(page, r"(?i)https?://")
        self.assertFalse(os.path.exists(os.path.join(d, "plots")), "the run's plots/ was written")

    def test_two_runs(self):
        a = self.make("a")
        b = self.make("b", scale=1.5)
        shutil.rmtree(os.path.join(b, "plots"))
        rc, out, err = run_report([a, b])
        self.assertEqual(rc, 0, err)
        path = os.path.join(b, "report-vs-a.html")
        self.assertEqual(out, path + "\n")
        with open(path) as f:
            page = f.read()
        self.assertNotRegex(page, r"(?i)https?://")
        self.assertIn("b against a: B / A", page)
        # lock-scaling's IOPS are 1.5x with 1 % spread: changed; its p99s and the floppy's IOPS are the same
        m = re.search(r"<tr><td>drive0</td><td>global</td><td[^>]*>2</td><td[^>]*>2</td><td>IOPS</td>.*?</tr>", page)
        self.assertIsNotNone(m)
        self.assertIn("1.500 (", m.group(0))
        self.assertIn("changed: up 1.500x", m.group(0))
        m = re.search(r"<tr><td>drive0</td><td>global</td><td[^>]*>2</td><td[^>]*>2</td><td>p99 latency.*?</tr>",
                      page)
        self.assertIn("unchanged within noise", m.group(0))
        self.assertIn("global@a", page)      # compare's columns for the two runs
        self.assertIn("run a", page)
        self.assertIn("run b", page)

    def test_judge_change(self):
        r, ci, nz, v, t = verdict.judge_change([100, 101, 102], [150, 151, 152])
        self.assertEqual(v, verdict.CHANGED)
        self.assertAlmostEqual(r, 151 / 101)
        self.assertAlmostEqual(nz, (102 / 100) * (152 / 150))
        self.assertEqual(verdict.judge_change([100, 101, 102], [101, 100, 102])[3], verdict.UNCHANGED)
        # a 10 % change inside a run whose repeats spread 30 %: unchanged within noise, not changed
        self.assertEqual(verdict.judge_change([80, 100, 104], [90, 110, 115])[3], verdict.UNCHANGED)
        self.assertEqual(verdict.judge_change([100], [150])[3], verdict.INCONCLUSIVE)
        self.assertEqual(verdict.judge_change([100], [150], 1.1, 1.1)[3], verdict.CHANGED)
        self.assertEqual(verdict.judge_change([None], [150])[3], verdict.INCONCLUSIVE)

    def test_bad_input(self):
        d = self.make()
        before = sorted(os.listdir(self.tmp))
        for argv, want in (([self.path("missing")], "no run %s" % self.path("missing")),
                           ([d, d, d], "give one run, or two"),
                           (["--metric", "nope", d], "--metric: unknown metric nope"),
                           (["--output", self.path("no", "x.html"), d], "--output %s: no such directory" %
                            self.path("no")),
                           ([d, d], "run r is given twice")):
            rc, out, err = run_report(argv)
            self.assertEqual(rc, 2, argv)
            self.assertEqual(out, "")
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertTrue(err.startswith("report: "), err)
            self.assertIn(want, err)
        empty = make_run(self.tmp, "e", [])
        rc, out, err = run_report([empty])
        self.assertEqual(rc, 2)
        self.assertIn("no finished point", err)
        self.assertEqual(sorted(os.listdir(self.tmp)), sorted(before + ["e"]))
        self.assertFalse(os.path.exists(os.path.join(d, "report.html")))
        self.assertFalse(os.path.exists(os.path.join(empty, "report.html")))


if __name__ == "__main__":
    unittest.main()
