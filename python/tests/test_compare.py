"""compare: column labels and the tables, on synthetic runs."""
import contextlib
import io

from rqlock import compare
from tests.helpers import TmpDir, make_run


def run_compare(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = compare.main(argv, prog="compare")
    return rc, out.getvalue()


class TestCompare(TmpDir):
    def test_labels(self):
        rows = [{"run": "a", "mode": "global", "primitive": "ttas"}, {"run": "a", "mode": "mq", "primitive": "mcs"},
                {"run": "a", "mode": "mq", "primitive": "ttas"}, {"run": "b", "mode": "mq", "primitive": "ttas"},
                {"run": "a", "mode": "fio-kernel", "primitive": "kernel"}]
        labels, order = compare.columns(rows)
        self.assertEqual(order, ["global/ttas", "mq/mcs", "mq/ttas@a", "mq/ttas@b", "fio-kernel"])

    def test_tables_ratio_to_best(self):
        rows = [{"mode": m, "jobfile": "x", "drives": d, "workers": 1, "iops": v, "lat_p99_us": p}
                for m, d, v, p in (("global", 1, 1000, 10), ("per-queue", 1, 2000, 5),
                                   ("global", 2, 1000, 20), ("per-queue", 2, 4000, 5))]
        d = make_run(self.tmp, "r", rows)
        rc, out = run_compare(["--metric", "iops,p99,merges", d])
        self.assertEqual(rc, 0)
        self.assertIn("x: IOPS, 1 worker", out)
        self.assertRegex(out, r"\n2 +1k \(0\.25\) +4k \(1\.00\)")
        self.assertRegex(out, r"\n2 +20 \(4\.00\) +5 \(1\.00\)")
        # scaling: D=2 vs D=1 at W=1
        self.assertIn("D=2 vs D=1 at W=1", out)
        rc, md = run_compare(["--format", "markdown", d])
        self.assertIn("| drives | global | per-queue |", md)

    def test_bad_input(self):
        with self.assertRaises(SystemExit) as e:
            run_compare(["--metric", "nope", self.tmp])
        self.assertIn("unknown metric nope", str(e.exception.code))
        with self.assertRaises(SystemExit) as e:
            run_compare([self.path("missing")])
        self.assertIn("no run", str(e.exception.code))
