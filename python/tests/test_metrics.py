"""metrics: the table, and each metric read from fio-style JSON."""
import unittest

from rqlock import metrics
from tests.helpers import fio_job


class TestTable(unittest.TestCase):
    def test_summary_columns_in_order(self):
        # the columns of summary.csv that tests/test_sweep.sh pins
        self.assertEqual(metrics.summary_columns(), [
            "iops", "iops_min", "iops_max", "iops_reps", "bw_bytes", "lat_p50_us", "lat_p99_us",
            "lat_p99_us_min", "lat_p99_us_max", "lat_p99_us_reps", "lat_p999_us", "lat_max_us", "int_p99_us",
            "int_p99_us_min", "int_p99_us_max", "int_p99_us_reps", "int_p9999_us", "int_max_us",
            "late_share", "late_share_reps", "slat_share", "slat_share_reps", "slat_mean_us", "lat_kind",
            "lock_wait_share", "contention_share", "holder_wait_ms", "floppy_wait_share", "merges", "bg_cpu",
            "bg_cpu_reps", "steal", "mhz_spread", "hold_ns_per_io", "hold_locks",
            "handoff_ns_per_io", "handoff_full_ns_per_io", "gap_ns_per_io", "gap_full_ns_per_io",
            "release_ns_per_io"])

    def test_keys_and_columns_unique(self):
        keys = [m.key for m in metrics.METRICS]
        cols = [c for m in metrics.METRICS for c in m.columns]
        self.assertEqual(len(keys), len(set(keys)))
        self.assertEqual(len(cols), len(set(cols)))
        for m in metrics.METRICS:
            self.assertIn(m.scope, ("job", "point", "meta"), m.key)
            self.assertIn(m.better, ("high", "low", None), m.key)
            self.assertTrue(m.doc and m.title, m.key)

    def test_new_metric_is_one_entry(self):
        # a metric added to the table is read, aggregated and given columns
        extra = metrics.Metric("late", "late_ios", "late I/Os", lambda j: j.get("late", 0), better="low",
                               spread=True, doc="I/Os issued after their due time")
        metrics.METRICS.append(extra)
        try:
            self.assertEqual(metrics.summary_columns()[-3:], ["late_ios", "late_ios_min", "late_ios_max"])
            jm = metrics.job_metrics(dict(fio_job(), late=7))
            self.assertEqual(jm["late_ios"], 7)
            agg = metrics.aggregate([{"late_ios": 1}, {"late_ios": 5}, {"late_ios": 3}])
            self.assertEqual((agg["late_ios"], agg["late_ios_min"], agg["late_ios_max"]), (3, 1, 5))
        finally:
            metrics.METRICS.remove(extra)


class TestJobMetrics(unittest.TestCase):
    def test_read_job_total_latency(self):
        m = metrics.job_metrics(fio_job(read_iops=2000, p99=50000))
        self.assertEqual(m["iops"], 2000)
        self.assertEqual(m["bw_bytes"], 2000 * 4096)
        self.assertEqual(m["lat_kind"], "lat")
        self.assertAlmostEqual(m["lat_p99_us"], 51.0)      # lat = clat + 1 us in the fixture
        self.assertAlmostEqual(m["lat_max_us"], 120.0)

    def test_clat_when_no_total_latency(self):
        m = metrics.job_metrics(fio_job(lat=False, p50=8000))
        self.assertEqual(m["lat_kind"], "clat")
        self.assertAlmostEqual(m["lat_p50_us"], 8.0)

    def test_write_only_job_reads_write_latency(self):
        j = fio_job(read_iops=0, write_iops=500, lat=False, p99=10000)
        m = metrics.job_metrics(j)
        self.assertEqual(m["iops"], 500)
        self.assertAlmostEqual(m["lat_p99_us"], 20.0)       # write clat is 2x in the fixture
        self.assertIsNone(m["lat_max_us"])                   # no total latency samples

    def test_pct_other_precision(self):
        self.assertEqual(metrics.pct({"99.9": 5}, "99.900000"), 5)
        self.assertIsNone(metrics.pct({"99.0": 5}, "99.900000"))
        self.assertIsNone(metrics.pct(None, "50"))


class TestRunMetrics(unittest.TestCase):
    base = {"jobs": [{"jobname": "a", "groupid": 0, "job_runtime": 1000}],
            "rqlock": {"workers": 2, "locks": [{"name": "l", "acquisitions": 100, "contentions": 25}],
                       "queues": [{"merges_front": 1, "merges_back": 2}]}}

    def test_without_lockstat(self):
        r = metrics.run_metrics(self.base, 2)
        self.assertEqual(r, {"lock_wait_share": None, "contention_share": 0.25, "holder_wait_ms": None,
                             "floppy_wait_share": None, "merges": 3, "steal": None, "mhz_spread": None, "hold_ns_per_io": None, "hold_locks": None,
                             "handoff_ns_per_io": None, "handoff_full_ns_per_io": None,
                             "gap_ns_per_io": None, "gap_full_ns_per_io": None,
                             "release_ns_per_io": None})

    def test_lockstat_wait_share(self):
        d = dict(self.base, rqlock=dict(self.base["rqlock"], lockstat={
            "enabled": 1, "elapsed_ns": 10**9, "classes": [{"wait_ns": {"total": 3 * 10**8}},
                                                           {"wait_ns": {"total": 10**8}}]}))
        self.assertAlmostEqual(metrics.run_metrics(d, 2)["lock_wait_share"], 0.2)

    def test_lockstat_elapsed_from_jobs(self):
        # no elapsed_ns: the longest job of each group (ms), summed
        d = {"jobs": [{"groupid": 0, "job_runtime": 500}, {"groupid": 0, "job_runtime": 1000},
                      {"groupid": 1, "job_runtime": 1000}],
             "rqlock": {"workers": 1, "locks": [], "lockstat": {"classes": [{"wait_ns": {"total": 10**9}}]}}}
        self.assertAlmostEqual(metrics.run_metrics(d, 1)["lock_wait_share"], 0.5)

    def test_lockstat_off(self):
        d = {"jobs": [], "rqlock": {"locks": [], "lockstat": {"enabled": 0, "classes": []}}}
        self.assertIsNone(metrics.run_metrics(d, 1)["lock_wait_share"])

    def test_fio_kernel(self):
        d = {"jobs": [], "disk_util": [{"read_merges": 4, "write_merges": 1}]}
        self.assertEqual(metrics.run_metrics(d, 1), {"lock_wait_share": None, "contention_share": None,
                                                     "holder_wait_ms": None, "floppy_wait_share": None,
                                                     "merges": 5, "steal": None, "mhz_spread": None, "hold_ns_per_io": None, "hold_locks": None,
                                                     "handoff_ns_per_io": None, "handoff_full_ns_per_io": None,
                             "gap_ns_per_io": None, "gap_full_ns_per_io": None,
                             "release_ns_per_io": None})


class TestIntended(unittest.TestCase):
    """issue 12: lat_intended_ns, late_ios, the floppy's hold share, lockstat holders"""
    job = {"job_runtime": 1000, "read": {"total_ios": 200, "late_ios": 30,
           "slat_ns": {"N": 2, "mean": 1e8}, "lat_ns": {"N": 200},
           "lat_intended_ns": {"N": 200, "max": 9e6, "percentile": {"99.000000": 5e6, "99.990000": 8e6}}}}

    def test_job(self):
        m = metrics.job_metrics(self.job)
        self.assertEqual(m["int_p99_us"], 5000.0)
        self.assertEqual(m["int_p9999_us"], 8000.0)
        self.assertEqual(m["int_max_us"], 9000.0)
        self.assertAlmostEqual(m["late_share"], 0.15)
        self.assertAlmostEqual(m["slat_share"], 0.2)     # 2 x 100 ms in 1 s
        self.assertEqual(m["slat_mean_us"], 1e5)

    def test_no_rate_no_intended(self):
        m = metrics.job_metrics({"job_runtime": 1000, "read": {"total_ios": 5, "lat_ns": {"N": 5}}})
        self.assertIsNone(m["int_p99_us"])
        self.assertIsNone(m["late_share"])

    def test_holders(self):
        d = {"jobs": [], "rqlock": {"locks": [], "lockstat": {"classes": [{"holders": [
            {"waiter": "@null0", "holder": "@floppy0,driver=sync", "wait_ns": 3e6},
            {"waiter": "@null0", "holder": "@null0", "wait_ns": 1e6},
            {"waiter": "@floppy0,driver=sync", "holder": "@null0", "wait_ns": 5e6}]}]}}}
        r = metrics.run_metrics(d, 2)
        self.assertAlmostEqual(r["holder_wait_ms"], 4.0)         # the floppy's own waits left out
        self.assertAlmostEqual(r["floppy_wait_share"], 3.0 / 9.0)


class TestAggregate(unittest.TestCase):
    def test_median_spread_text(self):
        s = [dict(iops=v, lat_p99_us=p, lat_kind="lat", bg_cpu=None) for v, p in ((3, 9), (1, None), (2, 7))]
        a = metrics.aggregate(s)
        self.assertEqual((a["iops"], a["iops_min"], a["iops_max"]), (2, 1, 3))
        self.assertEqual((a["lat_p99_us"], a["lat_p99_us_min"], a["lat_p99_us_max"]), (8, 7, 9))
        self.assertEqual(a["lat_kind"], "lat")
        self.assertIsNone(a["bg_cpu"])

    def test_human_and_fmt(self):
        self.assertEqual(metrics.human(12345678, "iops"), "12.3M")
        self.assertEqual(metrics.human(2 * 1048576, "bw"), "2")
        self.assertEqual(metrics.human(0.25, "lock"), "25.00%")
        self.assertEqual(metrics.human(1234.4, "p99"), "1234")
        self.assertEqual(metrics.human(None, "p99"), "-")
        self.assertEqual(metrics.fmt(0.1 + 0.2), "0.3")
        self.assertEqual(metrics.fmt(None), "")


if __name__ == "__main__":
    unittest.main()


class TestHuman(unittest.TestCase):
    """issue 33: a table cell says its value plainly: no exponent, no 0 for a sub-us latency."""

    def test_no_exponent_at_a_thousand(self):
        from rqlock.metrics import human
        self.assertEqual(human(999.6, "iops"), "1k")
        self.assertEqual(human(999.6, "p99"), "1000")
        self.assertEqual(human(999.4, "iops"), "999")
        self.assertEqual(human(0.074, "p99"), "0.074")
