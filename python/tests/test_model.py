"""model.py and metrics.shared_hold_ns / shared_handoff_ns: the ceiling
predicted from measured lock holds (issue 28): a lock every request takes
saturates at 1 / hold; with the handoffs measured (issue 33) at
1 / (hold + handoff), and past the machine a band between the two."""
import contextlib
import io
import os
import shutil
import unittest

from rqlock import metrics, model, plot
from tests.helpers import TmpDir, make_run


def doc(acq, ios, hold_hist, locks=1, handoff_hist=None, bounces=0, gap_hist=None, rel=(0, 0)):
    c = {"acquisitions": acq, "locks": locks, "acq_bounces": bounces, "hold_ns": {"histogram": hold_hist},
         "rel_sampled": rel[0], "rel_waited": rel[1]}
    if handoff_hist is not None:
        c["handoff_ns"] = {"histogram": handoff_hist}
    if gap_hist is not None:
        c["gap_ns"] = {"histogram": gap_hist}
    return {"jobs": [{"read": {"total_ios": ios}, "write": {}, "trim": {}}],
            "rqlock": {"lockstat": {"classes": [c]}}}


class Hold(unittest.TestCase):
    def test_one_lock_every_request(self):
        # 2 acquisitions per I/O, 50 ns each: 100 ns of the lock per I/O
        self.assertAlmostEqual(metrics.shared_hold_ns(doc(2000, 1000, {"50": 100}), 1), 100.0)

    def test_preempted_holders_trimmed(self):
        # the slowest 1 % (a holder the host preempted for 20 ms) is left out
        h = metrics.shared_hold_ns(doc(1000, 1000, {"20": 99, "20000000": 1}), 1)
        self.assertAlmostEqual(h, 20.0)

    def test_one_lock_per_drive_shares_the_load(self):
        d = doc(1000, 1000, {"40": 10}, locks=4)
        self.assertAlmostEqual(metrics.shared_hold_ns(d, 4), 10.0)
        self.assertEqual(metrics.shared_hold_locks(d, 4), 4)

    def test_without_lockstat(self):
        self.assertIsNone(metrics.shared_hold_ns({"jobs": [], "rqlock": {}}, 1))


class Ceiling(unittest.TestCase):
    def test_linear_until_the_ceiling(self):
        c = model.ceiling({"hold_ns_per_io": "100"})        # 10 M IOPS
        self.assertAlmostEqual(c, 1e7)
        self.assertAlmostEqual(model.predict(2, 3e6, c), 6e6)
        self.assertAlmostEqual(model.predict(8, 3e6, c), 1e7)
        self.assertAlmostEqual(model.predict(8, 3e6, None), 2.4e7)

    def test_extrapolation(self):
        one = {1: {"hold_ns_per_io": "100", "drives": "1", "hold_locks": "1"},
               2: {"hold_ns_per_io": "100", "drives": "1", "hold_locks": "1"}}
        self.assertAlmostEqual(model.extrapolate(one, 64), 1e7)        # one lock: the ceiling stays
        per_drive = {1: {"hold_ns_per_io": "10", "drives": "1", "hold_locks": "1"},
                     2: {"hold_ns_per_io": "10", "drives": "2", "hold_locks": "2"}}
        self.assertAlmostEqual(model.extrapolate(per_drive, 16), 1e8 * 8)   # a lock per drive: grows


class Handoff(unittest.TestCase):
    def test_handoff_per_io(self):
        # 1 acquisition per I/O, half of them moved the lock, 200 ns each: 100 ns per I/O
        d = doc(1000, 1000, {"50": 10}, handoff_hist={"200": 10}, bounces=500)
        self.assertAlmostEqual(metrics.shared_handoff_ns(d, 2), 100.0)
        self.assertAlmostEqual(metrics.shared_handoff_full_ns(d, 2), 200.0)
        # one lock per drive: each instance hands off its own share
        d4 = doc(1000, 1000, {"50": 10}, locks=4, handoff_hist={"200": 10}, bounces=1000)
        self.assertAlmostEqual(metrics.shared_handoff_ns(d4, 4), 50.0)

    def test_no_handoff_samples(self):
        # W=1 (nothing waited) or a binary older than handoff_ns
        self.assertIsNone(metrics.shared_handoff_ns(doc(1000, 1000, {"50": 10}), 1))
        self.assertIsNone(metrics.shared_handoff_ns(doc(1000, 1000, {"50": 10}, handoff_hist={}), 1))

    def test_gap_per_io(self):
        # a quarter of the sampled releases left a waiter; the gap after them is 400 ns
        d = doc(1000, 1000, {"50": 10}, gap_hist={"400": 10}, rel=(80, 20))
        self.assertAlmostEqual(metrics.shared_gap_ns(d, 2), 100.0)
        self.assertAlmostEqual(metrics.shared_gap_full_ns(d, 2), 400.0)
        # one lock per drive shares it
        d4 = doc(1000, 1000, {"50": 10}, locks=4, gap_hist={"400": 10}, rel=(80, 20))
        self.assertAlmostEqual(metrics.shared_gap_ns(d4, 4), 25.0)
        # no sampled release, or none left a waiter: no gap
        self.assertIsNone(metrics.shared_gap_ns(doc(1000, 1000, {"50": 10}), 1))
        self.assertIsNone(metrics.shared_gap_ns(doc(1000, 1000, {"50": 10}, gap_hist={}, rel=(80, 0)), 1))

    def test_gap_model_first(self):
        # a mutex: few handoffs (the releaser takes it again), but gaps while its waiter wakes
        r = {"hold_ns_per_io": "150", "handoff_ns_per_io": "10", "handoff_full_ns_per_io": "40",
             "gap_ns_per_io": "250", "gap_full_ns_per_io": "650"}
        self.assertEqual(model.name(r), model.GAPS)
        self.assertAlmostEqual(model.ceiling(r), 2.5e6)
        self.assertAlmostEqual(model.ceiling(r, model.CONTENDED), 1e9 / 160)
        self.assertEqual(model.band(r), (1e9 / 800, 1e9 / 150))

    def test_known_ceiling(self):
        # hold 150 + handoff 250 ns per I/O: 2.5 M IOPS, whatever X1 promises
        r = {"hold_ns_per_io": "150", "handoff_ns_per_io": "250", "handoff_full_ns_per_io": "250"}
        self.assertEqual(model.name(r), model.CONTENDED)
        self.assertAlmostEqual(model.ceiling(r), 2.5e6)
        self.assertAlmostEqual(model.ceiling(r, model.OPTIMISTIC), 1e9 / 150)
        self.assertAlmostEqual(model.predict(2, 20e6, model.ceiling(r)), 2.5e6)
        self.assertAlmostEqual(model.predict(2, 1e6, model.ceiling(r)), 2e6)     # below it: linear

    def test_falls_back_to_holds(self):
        r = {"hold_ns_per_io": "100", "handoff_ns_per_io": ""}
        self.assertEqual(model.name(r), model.OPTIMISTIC)
        self.assertAlmostEqual(model.ceiling(r), 1e7)
        self.assertEqual(model.band(r), (1e7, 1e7))
        self.assertEqual(model.band({}), (None, None))

    def test_band_ordered(self):
        # ttas: a third of the acquisitions handed off; the band's low end hands off all of them
        r = {"hold_ns_per_io": "100", "handoff_ns_per_io": "100", "handoff_full_ns_per_io": "300",
             "drives": "1", "hold_locks": "1"}
        lo, hi = model.band(r)
        self.assertAlmostEqual(lo, 1e9 / 400)
        self.assertAlmostEqual(hi, 1e9 / 100)
        self.assertLess(lo, model.ceiling(r))
        self.assertLess(model.ceiling(r), hi)
        pts = {1: {"hold_ns_per_io": "10", "drives": "1", "hold_locks": "1"}, 2: r}
        # at a measured W the band is the point; past it the band opens, ordered, and one lock keeps it
        self.assertEqual(model.extrapolate_band(pts, 2), (model.ceiling(r), model.ceiling(r)))
        lo64, hi64 = model.extrapolate_band(pts, 64)
        self.assertAlmostEqual(lo64, lo)
        self.assertAlmostEqual(hi64, hi)
        # a lock per drive at D = W: both ends grow with the drives
        per_drive = {1: {"hold_ns_per_io": "10", "drives": "1", "hold_locks": "1"},
                     2: dict(r, drives="2", hold_locks="2")}
        lo16, hi16 = model.extrapolate_band(per_drive, 16)
        self.assertAlmostEqual(lo16, lo * 8)
        self.assertAlmostEqual(hi16, hi * 8)
        self.assertLessEqual(lo16, model.extrapolate(per_drive, 16))
        self.assertLessEqual(model.extrapolate(per_drive, 16), hi16)


class Mva(unittest.TestCase):
    """model.mva / predict_at: Mean Value Analysis of W workers and a lock."""

    def test_limits(self):
        # one worker: an I/O's whole time; many: the lock's ceiling
        self.assertAlmostEqual(model.mva(1, 300, 100), 1 / 400)
        self.assertAlmostEqual(model.mva(1000, 300, 100), 1 / 100, delta=1e-5)
        # below both bounds at the knee: two workers cannot both hide their lock time
        x2 = model.mva(2, 300, 100)
        self.assertLess(x2, min(2 / 400, 1 / 100))
        self.assertAlmostEqual(x2, 2 / (300 + 100 * (1 + 100 / 400)))
        # n instances each take 1 / n of the I/Os: the ceiling is 1 / s of each
        self.assertAlmostEqual(model.mva(4000, 300, 50, n=4), 1 / 50, delta=2e-5)

    def test_release_adds_outside_work(self):
        row1 = {"hold_ns_per_io": "10", "release_ns_per_io": "5"}
        row = {"hold_ns_per_io": "100", "gap_ns_per_io": "100", "release_ns_per_io": "305"}
        x1 = 1e9 / 110       # 110 ns per I/O at W=1: 100 outside, 10 held
        # z = 100 + (305 - 5), s = 200
        self.assertAlmostEqual(model.predict_at(2, x1, row, row1), model.mva(2, 400, 200) * 1e9)
        self.assertLess(model.predict_at(2, x1, row, row1), model.predict_at(2, x1, dict(row, release_ns_per_io="5"), row1))
        # without lockstat: W x X1
        self.assertAlmostEqual(model.predict_at(2, x1, {}, row1), 2 * x1)


class PlotBand(TmpDir):
    """plot's scaling figure draws the prediction past the machine as a band
    between the two models, and says which model drew the line."""

    def test_band_past_the_machine(self):
        if not shutil.which("gnuplot"):
            self.skipTest("gnuplot is not installed")
        base = {"mode": "global", "primitive": "ttas", "jobfile": "lock-scaling", "hold_locks": 1}
        rows = [dict(base, drives=1, workers=1, iops=20e6, hold_ns_per_io=15),
                dict(base, drives=1, workers=2, iops=3.5e6, hold_ns_per_io=100, handoff_ns_per_io=100,
                     handoff_full_ns_per_io=300),
                dict(base, drives=2, workers=2, iops=3.5e6, hold_ns_per_io=100, handoff_ns_per_io=100,
                     handoff_full_ns_per_io=300)]
        d = make_run(self.tmp, "r", rows)
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(plot.main([d, "--out", self.path("p")], prog="plot"), 0)
        with open(self.path("p", "lock-scaling-scaling.dat")) as f:
            blocks = [b for b in f.read().split("\n\n\n") if "predicted" in b.splitlines()[0]]
        with open(self.path("p", "lock-scaling-scaling.gp")) as f:
            gp = f.read()
        self.assertIn("filledcurves", gp)
        self.assertIn("model holds+handoffs", gp)
        pts = {int(x.split()[0]): [float(v) for v in x.split()[1:]] for x in blocks[0].splitlines()[1:]}
        # measured W: the point, no band; Mean Value Analysis below the 5 M ceiling (z = 50 - 15 ns,
        # s = 200 ns: 2 / (35 + 200 x (1 + 200/235)) = 4.94 M)
        self.assertEqual(pts[2][0], pts[2][1])
        self.assertEqual(pts[2][0], pts[2][2])
        self.assertAlmostEqual(pts[2][0], 2e9 / (35 + 200 * (1 + 200 / 235)), delta=100)
        mid, lo, hi = pts[64]
        self.assertAlmostEqual(lo, 2.5e6, delta=2.5e4)              # every acquisition a handoff, saturated
        self.assertAlmostEqual(hi, 1e7, delta=1e5)                  # holds only
        self.assertLess(lo, mid)
        self.assertLess(mid, hi)


if __name__ == "__main__":
    unittest.main()
