"""layout: tables and paragraphs within 100 columns (issue 33)."""
import unittest

from rqlock import layout


def wide_table(ncols=9):
    head = ["mode", "floppy driver"] + ["a long column header number %d (90%% CI)" % i for i in range(ncols)]
    body = [["per-queue/ticket", "sync"] + ["12.3M [11.9M..12.6M] (0.97)"] * (ncols - 1)
            + ["<= 1.2x: inconclusive: noise floor 2.60x >= 2.56x off"],
            ["global/ttas", "2.4"] + ["5.15M [5.01M..5.30M] (0.41)"] * (ncols - 1)
            + ["inconclusive: noise floor 2.60x >= 2.56x off"]]
    return head, body


class TestTable(unittest.TestCase):
    def test_narrow_table_unchanged(self):
        lines = layout.table(["mode", "IOPS"], [["global", "1k"], ["per-queue", "2k"]])
        self.assertEqual(lines, ["mode       IOPS", "global       1k", "per-queue    2k"])

    def test_wide_table_fits_and_keeps_every_cell(self):
        head, body = wide_table()
        lines = layout.table(head, body, keys=2)
        self.assertTrue(all(len(x) <= layout.WIDTH for x in lines), max(len(x) for x in lines))
        text = "\n".join(lines)
        # the key columns start every block; every value is still there
        blocks = text.count("per-queue/ticket")
        self.assertGreater(blocks, 1)
        self.assertEqual(blocks, text.count("global/ttas"))
        self.assertEqual(text.count("12.3M [11.9M..12.6M] (0.97)"), 8)
        # the reason is one footnote, shared by both cells
        self.assertIn("<= 1.2x: inconclusive [1]", text)
        self.assertRegex(text, r"\n(global/ttas) +2\.4 +inconclusive \[1\]")
        self.assertEqual(text.count("noise floor 2.60x >= 2.56x off"), 1)
        self.assertTrue(lines[-1].startswith("[1] noise floor"))

    def test_wide_flag_keeps_one_line_per_row(self):
        head, body = wide_table()
        lines = layout.table(head, body, keys=2, wide=True)
        self.assertEqual(len(lines), 3)
        self.assertGreater(len(lines[1]), layout.WIDTH)
        self.assertIn("<= 1.2x: inconclusive: noise floor 2.60x >= 2.56x off", lines[1])

    def test_short_verdicts_stay(self):
        n = layout.Notes()
        self.assertEqual(n.shorten("met"), "met")
        self.assertEqual(n.shorten(">= 0.8 linear: met"), ">= 0.8 linear: met")
        self.assertEqual(n.shorten("NOT met: 0.41 < 0.8 by far"), "NOT met [1]")
        self.assertEqual(n.items, ["0.41 < 0.8 by far"])

    def test_wrap(self):
        text = " ".join(["word"] * 60)
        out = layout.wrap(text)
        self.assertTrue(all(len(x) <= 100 for x in out.split("\n")))
        self.assertEqual(out.replace("\n", " "), text)


if __name__ == "__main__":
    unittest.main()
