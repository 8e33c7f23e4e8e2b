"""python3 -m rqlock COMMAND [ARGS]: what `rqlock sweep|compare|plot|report` runs.

cli/main.c execs this with the package's directory on PYTHONPATH and
RQLOCK set to its own binary, so a sweep started as `rqlock sweep` runs the
same rqlock.
"""
import os
import sys

COMMANDS = {
    "sweep": "run job files over lock modes, primitives, drives and workers into a run store",
    "compare": "tables of lock modes side by side, from runs of sweep",
    "plot": "gnuplot PNG and SVG of a run",
    "report": "one self-contained HTML page of a run (or two): verdicts, tables, plots, lockstat",
    "manpage": "write rqlock(1) (roff) from `rqlock --help` (used by the build)",
}


def usage(f):
    f.write("usage: rqlock COMMAND [ARGS]   (python3 -m rqlock COMMAND [ARGS])\n\n")
    for k, v in COMMANDS.items():
        f.write("  %-8s %s\n" % (k, v))
    f.write("\n`rqlock COMMAND --help` for a command's options.\n")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        usage(sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd not in COMMANDS:
        sys.stderr.write("rqlock: unknown command '%s' (%s)\n" % (cmd, ", ".join(COMMANDS)))
        return 2
    prog = os.environ.get("RQLOCK_PROG", "rqlock") + " " + cmd
    if cmd == "sweep":
        from . import report, sweep
        return sweep.main(rest, prog=prog, on_done=report.after_sweep)
    if cmd == "compare":
        from . import compare as m
    elif cmd == "plot":
        from . import plot as m
    elif cmd == "report":
        from . import report as m
    else:
        from . import manpage as m
    return m.main(rest, prog=prog)


if __name__ == "__main__":
    sys.exit(main())
