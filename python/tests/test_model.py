"""model.py and metrics.shared_hold_ns: the ceiling predicted from measured
lock holds (issue 28): a lock every request takes saturates at 1 / hold."""
import unittest

from rqlock import metrics, model


def doc(acq, ios, hold_hist, locks=1):
    return {"jobs": [{"read": {"total_ios": ios}, "write": {}, "trim": {}}],
            "rqlock": {"lockstat": {"classes": [{"acquisitions": acq, "locks": locks,
                                                 "hold_ns": {"histogram": hold_hist}}]}}}


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


if __name__ == "__main__":
    unittest.main()
