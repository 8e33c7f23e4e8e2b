"""verdict.py: expectations judged against the noise of the same run
(issue 28): inside the noise -> inconclusive, a clear effect -> met or
NOT met, never a confident NOT met on a number the noise covers."""
import unittest

from rqlock import verdict
from rqlock.verdict import INCONCLUSIVE, MET, NOT_MET


class Ratio(unittest.TestCase):
    def test_no_effect_expected_and_none_seen(self):
        self.assertEqual(verdict.judge_ratio(1.05, 1.2, "le", noise=1.1)[0], MET)

    def test_no_effect_expected_but_inside_the_noise(self):
        # the quickstart: 5.54x under global, idle p99 371..2474 us (6.7x)
        noise = verdict.ratio_noise([[371, 900], [2474, 1200]])
        v, text = verdict.judge_ratio(5.54, 1.2, "le", noise=noise)
        self.assertEqual(v, INCONCLUSIVE)
        self.assertIn("noise floor 6.67x", text)

    def test_no_effect_expected_clear_effect_seen(self):
        self.assertEqual(verdict.judge_ratio(5.0, 1.2, "le", noise=1.1, ci=(4.5, 5.6))[0], NOT_MET)

    def test_repeats_spanning_the_bound_are_inconclusive(self):
        self.assertEqual(verdict.judge_ratio(1.5, 1.2, "le", noise=1.05, ci=(1.1, 1.9))[0], INCONCLUSIVE)

    def test_stall_expected_and_seen(self):
        self.assertEqual(verdict.judge_ratio(104.0, 10, "ge", noise=3.0, ci=(90, 120))[0], MET)

    def test_stall_expected_none_seen_on_a_quiet_machine(self):
        self.assertEqual(verdict.judge_ratio(1.1, 10, "ge", noise=1.2, ci=(0.9, 1.3))[0], NOT_MET)

    def test_stall_hidden_by_an_inflated_baseline(self):
        # busy/idle 5x, but the idle baseline alone moves by 3x: could be 15x
        self.assertEqual(verdict.judge_ratio(5.0, 10, "ge", noise=3.0)[0], INCONCLUSIVE)

    def test_effect_no_larger_than_idle_against_idle_proves_nothing(self):
        self.assertEqual(verdict.judge_ratio(12.0, 10, "ge", noise=20.0)[0], INCONCLUSIVE)

    def test_not_measured(self):
        self.assertEqual(verdict.judge_ratio(None, 1.2, "le")[0], INCONCLUSIVE)


class Share(unittest.TestCase):
    def test_prediction_met(self):
        self.assertEqual(verdict.judge_share(0.256, 0.259, noise=0.01)[0], MET)

    def test_zero_predicted_zero_seen(self):
        self.assertEqual(verdict.judge_share(0.004, 0.0, noise=0.002)[0], MET)

    def test_off_but_inside_the_noise(self):
        v, text = verdict.judge_share(0.05, 0.0, noise=0.09)
        self.assertEqual(v, INCONCLUSIVE)
        self.assertIn("noise floor", text)

    def test_clearly_off(self):
        # a stall predicted (26 %) and none measured on a quiet run: NOT met
        self.assertEqual(verdict.judge_share(0.001, 0.26, noise=0.005, ci=(0.0, 0.003))[0], NOT_MET)

    def test_repeats_reaching_the_prediction(self):
        self.assertEqual(verdict.judge_share(0.10, 0.26, noise=0.005, ci=(0.05, 0.3))[0], INCONCLUSIVE)


class Helpers(unittest.TestCase):
    def test_bootstrap_ci_brackets_the_median(self):
        lo, hi = verdict.bootstrap_ci([1.0, 1.1, 0.9, 1.05, 1.2, 0.95, 1.0])
        self.assertLessEqual(lo, 1.0)
        self.assertGreaterEqual(hi, 1.0)
        self.assertGreaterEqual(lo, 0.9)
        self.assertLessEqual(hi, 1.2)

    def test_bootstrap_ci_needs_two(self):
        self.assertIsNone(verdict.bootstrap_ci([1.0]))
        self.assertIsNone(verdict.bootstrap_ci([None, 2.0]))

    def test_bootstrap_is_repeatable(self):
        xs = [3.0, 1.0, 4.0, 1.5, 9.0]
        self.assertEqual(verdict.bootstrap_ci(xs), verdict.bootstrap_ci(xs))

    def test_noise_floors(self):
        self.assertAlmostEqual(verdict.ratio_noise([[1.0, 2.0], [4.0]]), 4.0)
        self.assertIsNone(verdict.ratio_noise([[1.0]]))
        self.assertAlmostEqual(verdict.share_noise([[0.01, 0.05], [0.02]]), 0.04)

    def test_combine_never_takes_not_met_from_the_secondary(self):
        self.assertEqual(verdict.combine(INCONCLUSIVE, NOT_MET), INCONCLUSIVE)
        self.assertEqual(verdict.combine(INCONCLUSIVE, MET), MET)
        self.assertEqual(verdict.combine(NOT_MET, MET), NOT_MET)
        self.assertEqual(verdict.combine(MET, NOT_MET), MET)

    def test_paired_ratios(self):
        self.assertEqual(verdict.paired_ratios([2.0, None, 3.0], [1.0, 1.0, 0]), [2.0])


if __name__ == "__main__":
    unittest.main()
