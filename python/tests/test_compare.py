"""compare: column labels and the tables, on synthetic runs."""
import contextlib
import io
import json
import os

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


def floppy_rows(mode, drv, idle_p99, busy_p99, idle_late, busy_late, s):
    """The three rows of a floppy-vs-disk point (three repeats each)."""
    j = lambda xs: ";".join("%g" % x for x in xs)  # noqa: E731
    base = {"jobfile": "floppy-vs-disk", "mode": mode, "drives": 1, "workers": 2, "var_DRIVER": drv,
            "repeats": 3}
    return [dict(base, job="disk-idle-floppy", iops=1000, iops_reps="1000;1000;1000", int_p99_us=idle_p99[1],
                 int_p99_us_reps=j(idle_p99), late_share=idle_late[1], late_share_reps=j(idle_late)),
            dict(base, job="disk-busy-floppy", iops=1000, iops_reps="1000;1000;1000", int_p99_us=busy_p99[1],
                 int_p99_us_reps=j(busy_p99), late_share=busy_late[1], late_share_reps=j(busy_late)),
            dict(base, job="floppy", iops=1, slat_share=s, slat_share_reps=j([s, s, s]), slat_mean_us=140000)]


class TestFloppyVerdicts(TmpDir):
    """issue 28: the floppy table's verdicts against the noise of the run."""

    def run_with(self, rows):
        d = make_run(self.tmp, "f", rows)
        mp = os.path.join(d, "manifest.json")
        with open(mp) as f:
            man = json.load(f)
        man["devices"] = {"DISK": "@null{n},irqmode=2,delay_us=1000,depth=2", "FLOPPY": "@floppy{n},driver=${DRIVER}"}
        man["axes"]["vars"] = {"DRIVER": ["sync", "2.4"]}
        with open(mp, "w") as f:
            json.dump(man, f)
        with open(os.path.join(d, "summary.csv")) as f:
            head = f.readline().strip().split(",")
        cols = head[:8] + ["var_DRIVER"] + head[8:]
        with open(os.path.join(d, "summary.csv"), "w") as f:
            f.write(",".join(cols) + "\n")
            for r in rows:
                r = dict({"run": "f", "point": "p", "primitive": "ttas", "status": "ok"}, **r)
                f.write(",".join(str(r.get(c, "")) for c in cols) + "\n")
        self.dir = d
        rc, out = run_compare(["--verdicts", "--format", "json", d])
        self.assertEqual(rc, 0)
        rows = {}
        sec = [s for s in json.loads(out)["sections"] if "idle and busy" in (s["title"] or "")]
        for r in sec[0]["tables"][0]["rows"]:     # the first table's rows (the verdicts), not the prediction's
            rows.setdefault(r[0] + "+" + r[1], "  ".join(r))
        return rows

    def test_quiet_run_all_met(self):
        t = self.run_with(
            floppy_rows("global", "sync", [1500, 1650, 1700], [160000, 171000, 180000], [0.001, 0.001, 0.002],
                        [0.25, 0.26, 0.27], 0.13) +
            floppy_rows("per-queue", "sync", [1400, 1430, 1500], [1400, 1420, 1500], [0.001, 0.001, 0.001],
                        [0.001, 0.002, 0.001], 0.09) +
            floppy_rows("global", "2.4", [1380, 1400, 1450], [1500, 1550, 1600], [0.001, 0.002, 0.001],
                        [0.002, 0.002, 0.001], 0.00005))
        for k, line in t.items():
            self.assertTrue(line.rstrip().endswith(" met"), "%s: %s" % (k, line))

    def test_inside_the_noise_is_inconclusive_not_not_met(self):
        # a loaded machine: idle p99 from 5 to 30 ms, late shares 5-40 %; the 2.4 floppy's
        # busy/idle 2x and late +10 points are inside that
        t = self.run_with(
            floppy_rows("global", "2.4", [5000, 8000, 30000], [12000, 16000, 40000], [0.05, 0.2, 0.4],
                        [0.15, 0.3, 0.45], 0.00005) +
            floppy_rows("per-queue", "2.4", [6000, 9000, 20000], [9000, 18000, 30000], [0.1, 0.15, 0.3],
                        [0.2, 0.25, 0.4], 0.00005))
        for k, line in t.items():
            self.assertNotIn("NOT met", line, k)
            self.assertIn("inconclusive", line, k)

    def test_a_stall_missing_on_a_quiet_run_is_not_met(self):
        # driver=sync under global, a quiet machine, and the disk not delayed: NOT met
        t = self.run_with(
            floppy_rows("global", "sync", [1500, 1600, 1700], [1500, 1600, 1700], [0.001, 0.001, 0.001],
                        [0.001, 0.001, 0.001], 0.13) +
            floppy_rows("per-queue", "sync", [1450, 1500, 1550], [1450, 1500, 1550], [0.001, 0.001, 0.001],
                        [0.001, 0.001, 0.001], 0.09))
        self.assertTrue(t["global+sync"].rstrip().endswith("NOT met"), t["global+sync"])
        self.assertTrue(t["per-queue+sync"].rstrip().endswith(" met"), t["per-queue+sync"])

    def test_formats(self):
        """issue 33: text within 100 columns, --wide as before, csv and json."""
        self.run_with(
            floppy_rows("global", "2.4", [5000, 8000, 30000], [12000, 16000, 40000], [0.05, 0.2, 0.4],
                        [0.15, 0.3, 0.45], 0.00005) +
            floppy_rows("per-queue", "2.4", [6000, 9000, 20000], [9000, 18000, 30000], [0.1, 0.15, 0.3],
                        [0.2, 0.25, 0.4], 0.00005))
        rc, text = run_compare([self.dir])
        self.assertEqual(rc, 0)
        self.assertLessEqual(max(len(x) for x in text.splitlines()), 100, text)
        self.assertRegex(text, r"\n\[1\] ")          # the reasons, as footnotes
        rc, wide = run_compare(["--wide", self.dir])
        self.assertGreater(max(len(x) for x in wide.splitlines()), 100)
        self.assertNotRegex(wide, r"\n\[1\] ")
        self.assertIn("inconclusive: ", wide)
        rc, c = run_compare(["--format", "csv", self.dir])
        import csv
        tabs = [r for r in csv.reader(io.StringIO(c))]
        self.assertIn(["# floppy-vs-disk: the disk with the floppy idle and busy, 2 workers (1)"], tabs)
        i = tabs.index(["# floppy-vs-disk: the disk with the floppy idle and busy, 2 workers (1)"])
        self.assertEqual(tabs[i + 1][:2], ["mode", "floppy driver"])
        self.assertEqual(len(tabs[i + 2]), len(tabs[i + 1]))

class TestPrediction(TmpDir):
    """The scaling section's prediction rows (issue 33): the ceiling from the
    measured hold and gap per I/O, the model named in each row."""

    def test_rows_use_the_gap_model(self):
        base = {"mode": "global", "primitive": "ttas", "jobfile": "lock-scaling"}
        rows = [dict(base, drives=1, workers=1, iops=20e6, hold_ns_per_io=15, hold_locks=1),
                # hold 150 + gap 250 ns per I/O: 2.5 M IOPS, where holds alone promise 6.67 M
                # (and the handoff, 50 ns, 5 M: the gap wins where both are there)
                dict(base, drives=1, workers=2, iops=2.4e6, hold_ns_per_io=150, hold_locks=1,
                     handoff_ns_per_io=50, handoff_full_ns_per_io=50,
                     gap_ns_per_io=250, gap_full_ns_per_io=250),
                # a run without handoff samples: the optimistic model, named as such
                dict(base, drives=2, workers=2, iops=3e6, hold_ns_per_io=150, hold_locks=1, bg_cpu=0.9)]
        d = make_run(self.tmp, "r", rows)
        rc, out = run_compare([d])
        self.assertEqual(rc, 0)
        pred = [ln for ln in out.splitlines() if ln.startswith("global ") and " / " in ln]
        self.assertEqual(len(pred), 2, out)
        d1, dw = (ln.split() for ln in pred)
        self.assertEqual(d1[1:7], ["D=1", "20M", "150.0", "250.0", "holds+gaps", "2.5M"])
        # Mean Value Analysis at W=2: z = 50 - 15 ns, s = 400 ns: 2 / (35 + 400 x (1 + 400/435)) = 2.49 M
        self.assertEqual(d1[7:], ["2.4M", "/", "2.49M", "(0.96)"])
        self.assertEqual(dw[1:7], ["D=W", "20M", "150.0", "-", "holds", "6.67M"])
        # its workers had 1.1 of the 2 CPUs free: marked, the lock model does not apply
        self.assertEqual(dw[-2:], ["(0.46)", "*"])
        self.assertTrue(all(len(ln) <= 100 for ln in pred), pred)
        self.assertIn("model holds+gaps: ceiling 1e9 / (hold + gap)", " ".join(out.split()))

    def test_older_run_uses_the_handoff(self):
        # a run older than gap_ns: the handoff model, its cell marked h
        base = {"mode": "global", "primitive": "mutex", "jobfile": "lock-scaling"}
        rows = [dict(base, drives=1, workers=1, iops=20e6, hold_ns_per_io=15, hold_locks=1),
                dict(base, drives=1, workers=2, iops=2.4e6, hold_ns_per_io=150, hold_locks=1,
                     handoff_ns_per_io=250, handoff_full_ns_per_io=250),
                dict(base, drives=2, workers=2, iops=3e6, hold_ns_per_io=150, hold_locks=1)]
        d = make_run(self.tmp, "r", rows)
        rc, out = run_compare([d])
        self.assertEqual(rc, 0)
        pred = [ln.split() for ln in out.splitlines() if ln.startswith("global ") and " / " in ln]
        self.assertEqual(pred[0][1:8], ["D=1", "20M", "150.0", "250.0", "h", "holds+handoffs", "2.5M"])
