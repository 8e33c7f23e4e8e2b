"""manpage: rqlock(1) from a help text in rqlock's format."""
import unittest

from rqlock import manpage

HELP = """usage: rqlock run [OPTIONS] JOBFILE...
       rqlock --help | --version

Runs fio job files.

Options of run:
  --lock=MODE                  lock mode: global or per-queue (default: global)
  --device=NAME=SPEC           a device alias (repeatable; default: none)
  --lockdep                    validate lock ordering
  --help                       this help

Exit status: 0 ok, 1 a job failed, 2 bad input.
"""
DEV = "usage: rqlock devices [--json]\n\nLists devices.\n  --json   one JSON object\n"
DUMP = "impl\tiodepth\t-\t1\tI/Os in flight (default: 1)\nnope\tzonemode\t-\t-\tno zones\n"


class TestManpage(unittest.TestCase):
    def test_every_option_with_default(self):
        roff = manpage.build(HELP, "rqlock-9", DUMP, DEV)
        self.assertIn('.TH RQLOCK 1 "" "rqlock\\-9"', roff)
        self.assertIn("\\fB\\-\\-lock\\fR=\\fIMODE\\fR\nlock mode: global or per\\-queue. Default: global.", roff)
        self.assertIn("a device alias (repeatable). Default: none.", roff)
        self.assertIn("validate lock ordering. Default: off (a flag).", roff)
        self.assertIn("\\fB\\-\\-json\\fR\none JSON object. Default: off (a flag).", roff)
        self.assertIn("\\fBiodepth\\fR\nI/Os in flight. Default: 1.", roff)
        self.assertIn("\\fBzonemode\\fR\nno zones.", roff)
        for cmd in ("sweep", "compare", "plot"):
            self.assertIn(".SH rqlock %s" % cmd, roff)
        self.assertIn("\\fB\\-\\-retry\\-failed\\fR", roff)

    def test_value_option_without_default_fails(self):
        bad = HELP.replace("(repeatable; default: none)", "(repeatable)")
        with self.assertRaises(manpage.ManError) as e:
            manpage.build(bad, "v")
        self.assertIn("--device", str(e.exception))

    def test_escapes(self):
        self.assertEqual(manpage.esc(".x-y\\z"), "\\&.x\\-y\\ez")
        self.assertEqual(manpage.split_default("a (b) (default: c (d))"), ("a (b)", "c (d)"))
        self.assertEqual(manpage.split_default("no default here"), ("no default here", None))
