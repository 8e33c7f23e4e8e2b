"""manpage: rqlock(1) in roff, generated from the program's own tables.

    python3 -m rqlock manpage --rqlock BUILD/rqlock [--optdump BUILD/optdump] --output rqlock.1

Sources, so that the page cannot drift from the program:
  `rqlock --help`   the commands and every option of `rqlock run` (main.c's
                    cli_opts table) with its default, and the notes on
                    devices, clocks and exit status
  optdump           the job-file option table (engine/jobfile.c's opts[]):
                    every fio option rqlock implements with its default, and
                    those it accepts with a warning or refuses, with why
  sweep, compare, plot, report   their argparse parsers

Every option must state its default; an option taking a value whose help
text has no "(default ...)" fails the build (exit 1, naming it).
"""
import argparse
import os
import re
import subprocess
import sys

from . import compare, plot, report, store, sweep

DEFAULT_RE = re.compile(r"\s*\(([^()]*; )?default:? ([^()]*(?:\([^()]*\)[^()]*)*)\)\s*$")


class ManError(Exception):
    pass


def esc(s):
    """Text for roff: backslashes, leading dots and quotes, hyphens in options."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    if s[:1] in (".", "'"):
        s = "\\&" + s
    return s


def split_default(help_text):
    """(help without its trailing "(default: X)", X or None)."""
    m = DEFAULT_RE.search(help_text)
    if not m:
        return help_text, None
    text = help_text[:m.start()].rstrip()
    if m.group(1):          # "(repeatable; default: X)": the note stays
        text += " (%s)" % m.group(1)[:-2]
    return text, m.group(2).strip()


def parse_help(text):
    """rqlock --help: (usage lines, intro paragraph, [(option, arg, help)], notes)."""
    lines = text.splitlines()
    usage, intro, opts, notes = [], [], [], []
    part = "usage"
    for ln in lines:
        if part == "usage":
            if not ln.strip():
                part = "intro"
                continue
            usage.append(ln.replace("usage:", "", 1).strip())
        elif part == "intro":
            if ln.startswith("Options of run"):
                part = "opts"
            elif ln.strip():
                intro.append(ln.strip())
        elif part == "opts":
            m = re.match(r"  --([\w-]+)(?:=(\S+))?\s+(.*)$", ln)
            if m:
                opts.append((m.group(1), m.group(2), m.group(3).strip()))
            elif not ln.strip() and opts:
                part = "notes"
        else:
            notes.append(ln)
    if not opts:
        raise ManError("rqlock --help lists no options of run")
    # a usage line continued on the next ("(`rqlock sweep --help`)") joins its command
    merged = []
    for u in usage:
        if merged and u.startswith("("):
            merged[-1] += " " + u
        else:
            merged.append(u)
    return merged, " ".join(intro), opts, "\n".join(notes).strip()


def option_item(flags, arg, help_text, default, out):
    out.append(".TP")
    head = ", ".join("\\fB%s\\fR" % esc(f) for f in flags)
    if arg:
        head += "=\\fI%s\\fR" % esc(arg)
    out.append(head)
    body = esc(help_text.rstrip("."))
    out.append(body + (". Default: %s." % esc(default) if default else "."))


def run_options(opts, out):
    for name, arg, h in opts:
        text, default = split_default(h)
        if default is None:
            if arg:
                raise ManError("rqlock --help: --%s takes a value but its help states no default" % name)
            default = "off (a flag)"
        option_item(["--" + name], arg, text, default, out)


def argparse_options(ap, out):
    for act in ap._actions:
        if not act.option_strings:
            continue
        if isinstance(act, argparse._HelpAction):
            option_item(act.option_strings, None, "show the command's help and exit", "off (a flag)", out)
            continue
        h = act.help or ""
        text, default = split_default(h)
        if default is None:
            m = re.search(r"\(default:? ([^)]*)\)", h)
            if m:
                default = m.group(1)
                text = h
        takes = act.nargs != 0
        if default is None:
            if not takes:
                default = "off (a flag)"
            elif act.default is not None:
                default = str(act.default)
            elif act.choices:
                raise ManError("%s %s: no default" % (ap.prog, act.option_strings[0]))
            else:
                default = "none"
        if not text and act.choices:
            text = "one of " + ", ".join(act.choices)
        if act.choices and "one of" not in text:
            text += " (one of %s)" % ", ".join(act.choices)
        arg = (act.metavar or act.dest.upper()) if takes else None
        option_item(act.option_strings, arg, text, default, out)


def doc_paragraphs(doc, out):
    """A module docstring after its usage lines, as an indented block."""
    body = doc.split("\n\n", 2)
    rest = body[2] if len(body) > 2 else ""
    if rest.strip():
        out.append(".PP")
        out.append(".nf")
        out += [esc(ln) for ln in rest.rstrip().splitlines()]
        out.append(".fi")


def job_options(dump, out):
    rows = [ln.split("\t") for ln in dump.splitlines() if ln.strip()]
    for r in rows:
        if len(r) != 5:
            raise ManError("optdump: a line without 5 fields: %r" % "\t".join(r))
    impl = [r for r in rows if r[0] == "impl"]
    out.append(".SH JOB FILE OPTIONS")
    out.append("Job files are fio's (fio 3.33 syntax).  The options rqlock implements, "
               "with fio's names (an alias in parentheses):")
    for _, name, alias, default, h in impl:
        text, d = split_default(h)
        if d is None:
            d = default if default != "-" else "none"
        out.append(".TP")
        out.append("\\fB%s\\fR%s" % (esc(name), " (\\fB%s\\fR)" % esc(alias) if alias != "-" else ""))
        out.append(esc(text.rstrip(".")) + ". Default: %s." % esc(d))
    for kind, title in (("only", "Accepted only at fio's default (the values listed)"),
                        ("inert", "Accepted with a warning (they cannot change rqlock's result)"),
                        ("nope", "Refused with the file, line and reason")):
        rs = [r for r in rows if r[0] == kind]
        if not rs:
            continue
        out.append(".SS %s" % esc(title))
        for _, name, alias, vals, why in rs:
            out.append(".TP")
            out.append("\\fB%s\\fR%s%s" % (esc(name), " (\\fB%s\\fR)" % esc(alias) if alias != "-" else "",
                                           " = %s" % esc(vals) if kind == "only" else ""))
            out.append(esc(why.rstrip(".")) + ".")


def devices_section(text, out):
    """`rqlock devices --help`: its description and its flags."""
    desc, opts = [], []
    for ln in text.splitlines()[1:]:
        m = re.match(r"  (--[\w-]+)(?:=(\S+))?\s+(.*)$", ln)
        if m:
            opts.append(m.groups())
        elif ln.strip():
            desc.append(ln.strip())
    if not opts:
        raise ManError("rqlock devices --help lists no options")
    out += [".SH rqlock devices", esc(" ".join(desc)), ".PP", "Options:"]
    for name, arg, h in opts:
        text_, default = split_default(h)
        if default is None:
            if arg:
                raise ManError("rqlock devices --help: %s takes a value but states no default" % name)
            default = "off (a flag)"
        option_item([name], arg, text_, default, out)


def build(help_text, version, dump=None, devices_help=None):
    usage, intro, opts, notes = parse_help(help_text)
    out = ['.\\" rqlock(1): generated at build time by python/rqlock/manpage.py from',
           '.\\" `rqlock --help`, the job option table and the sweep/compare/plot/report parsers.',
           '.TH RQLOCK 1 "" "%s" "User Commands"' % esc(version),
           ".SH NAME",
           "rqlock \\- run fio job files through a userspace block layer with switchable request-queue locks",
           ".SH SYNOPSIS", ".nf"]
    out += [esc(u) for u in usage]
    out += [".fi", ".SH DESCRIPTION", esc(intro),
            ".PP",
            "\\fBrqlock run\\fR runs fio job files and reports fio-compatible results (normal, JSON, json+, "
            "terse).  \\fBrqlock sweep\\fR, \\fBcompare\\fR, \\fBplot\\fR and \\fBreport\\fR run job files over "
            "lock modes, primitives, drives and workers into a run store, tabulate and draw the results, and "
            "put them on one HTML page; they are a "
            "Python package that \\fBrqlock\\fR runs with \\fBpython3\\fR.",
            ".SH OPTIONS OF RUN"]
    run_options(opts, out)
    if devices_help:
        devices_section(devices_help, out)
    for name, mod in (("sweep", sweep), ("compare", compare), ("plot", plot), ("report", report)):
        out.append(".SH rqlock %s" % name)
        ap = mod.parser("rqlock " + name)
        out.append(".nf")
        out += [esc(ln) for ln in ap.format_usage().replace("usage: ", "").rstrip().splitlines()]
        out.append(".fi")
        doc_paragraphs(mod.__doc__, out)
        out.append(".PP")
        out.append("Options:")
        argparse_options(ap, out)
    if dump is not None:
        job_options(dump, out)
    if notes:
        out += [".SH DEVICES, CLOCK AND EXIT STATUS", ".nf"] + [esc(ln) for ln in notes.splitlines()] + [".fi"]
    out += [".SH RQLOCK AS FIO",
            "\\fBrqlock-fio\\fR (a link to \\fBrqlock\\fR) is \\fBrqlock run\\fR with fio's command line "
            "as it is, so that a fio command line or a tool that drives fio runs unchanged:",
            ".PP", ".nf",
            esc("rqlock-fio --name=t --filename=/tmp/f --size=1g --rw=randread --bs=4k \\"),
            esc("    --ioengine=io_uring --direct=1 --iodepth=16 --runtime=2 --time_based --output-format=json"),
            esc("rqlock-fio --bs=64k job.fio      # global options before the first --name"),
            esc("eval \"rqlock run $(rqlock run --showcmd job.fio | sed 's/^fio //')\"   # the same jobs"),
            ".fi", ".PP",
            "\\fB--name\\fR=\\fIJOB\\fR starts a job; every job option is \\fB--\\fR\\fIopt\\fR=\\fIvalue\\fR "
            "(or \\fB--\\fR\\fIopt value\\fR); options before the first \\fB--name\\fR, or after "
            "\\fB--name=global\\fR, are global ones, and the first job file starts from them, as in fio.  "
            "Options and job files come in any order.  A clean run writes nothing to stderr that fio would "
            "not: the layout note is in the normal output, as fio's; options without effect are noted by "
            "\\fB--parse-only\\fR and \\fB--showcmd\\fR only.",
            ".PP",
            "A harness that runs fio sweeps lock modes unchanged through the environment:",
            ".PP", ".nf",
            esc("for m in $(rqlock --list --json | jq -r '.modes[].name'); do"),
            esc("    RQLOCK_LOCK=$m my-fio-harness --fio \"$(command -v rqlock-fio)\" > run-$m.txt"),
            esc("done"),
            ".fi", ".PP",
            "\\fBscripts/fio-suite\\fR \\fIFIO_SOURCE_DIR\\fR runs fio's own t/ suite from a fio checkout "
            "with rqlock-fio as fio, and counts the tests that pass against those the installed fio passes.",
            ".SH ENVIRONMENT",
            ".TP", "\\fBRQLOCK_LOCK\\fR, \\fBRQLOCK_LOCK_TYPE\\fR, \\fBRQLOCK_WORKERS\\fR",
            "the lock mode, lock primitive and workers of \\fBrqlock run\\fR and \\fBrqlock-fio\\fR, as "
            "\\fB--lock\\fR, \\fB--lock-type\\fR and \\fB--workers\\fR (a flag wins); also "
            "\\fBRQLOCK_HW_QUEUES\\fR, \\fBRQLOCK_CLUSTER_SIZE\\fR and \\fBRQLOCK_LOCKSTAT\\fR.  "
            "A bad value is refused with one line naming the variable (exit 2).",
            ".TP", "\\fBRQLOCK_CLOCK\\fR=clock_gettime", "time with CLOCK_MONOTONIC instead of the TSC.",
            ".TP", "\\fBRQLOCK_PYTHONPATH\\fR",
            "the directory holding the Python package rqlock/ for sweep, compare and plot (default: "
            "python/ next to the binary, else ../share/rqlock/python).",
            ".TP", "\\fBRQLOCK_RUNS\\fR", "where sweep keeps runs (default: results/runs).",
            ".SH FILES",
            ".TP", "\\fI/usr/share/rqlock/jobs/\\fR",
            "the job files of the experiments; \\fBrqlock run /usr/share/rqlock/jobs/demo.fio\\fR runs the "
            "demo on built-in devices.",
            ".SH SEE ALSO", "\\fBfio\\fR(1), \\fBgnuplot\\fR(1)"]
    return "\n".join(out) + "\n"


def parser(prog=None):
    ap = argparse.ArgumentParser(prog=prog, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rqlock", required=True, help="the rqlock binary whose --help is read")
    ap.add_argument("--optdump", help="the optdump binary that prints the job option table (default: none)")
    ap.add_argument("--output", required=True, help="the roff file to write")
    return ap


def main(argv=None, prog=None):
    argv = sys.argv[1:] if argv is None else argv
    store.use_rqlock(argv)   # the sub-commands' parsers read this binary's registry
    a = parser(prog).parse_args(argv)
    try:
        h = subprocess.run([a.rqlock, "--help"], capture_output=True, text=True, check=True).stdout
        v = subprocess.run([a.rqlock, "--version"], capture_output=True, text=True, check=True).stdout.strip()
        dh = subprocess.run([a.rqlock, "devices", "--help"], capture_output=True, text=True)
        dh = dh.stdout or dh.stderr
        dump = None
        if a.optdump:
            dump = subprocess.run([a.optdump], capture_output=True, text=True, check=True).stdout
        text = build(h, v, dump, dh)
    except (OSError, subprocess.CalledProcessError, ManError) as e:
        sys.stderr.write("manpage: %s\n" % e)
        return 1
    with open(a.output + ".tmp", "w") as f:
        f.write(text)
    os.replace(a.output + ".tmp", a.output)
    return 0
