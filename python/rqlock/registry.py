"""What the rqlock binary has: its lock modes (with their flags), lock
primitives and device kinds, as `rqlock --list --json` says (the same
document every JSON report carries as rqlock.registry).

The tools keep no list of their own (DESIGN.md): a mode added to
queues/queue.c's registry shows up in sweep, compare and plot with no
change here.  A mode's semantics the verdicts need are registry flags:
"shared_lock" (one lock serialises every queue: global), "all_workers".
The fio baselines ("fio-kernel", "fio-null") are the sweep's own points,
not modes of the binary.
"""
import collections.abc
import json
import subprocess

from . import store

FIO_MODES = ("fio-kernel", "fio-null")
_docs = {}


def load(rqlock=None):
    """The registry document of the binary @rqlock (default: store.find_rqlock())."""
    path = store.find_rqlock(rqlock)
    if path not in _docs:
        try:
            p = subprocess.run([path, "--list", "--json"], capture_output=True, text=True, timeout=60)
            if p.returncode:
                raise OSError(p.stderr.strip() or "exit %d" % p.returncode)
            _docs[path] = json.loads(p.stdout)
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            raise SystemExit("rqlock: cannot read the registry (%s --list --json): %s "
                             "(build rqlock: scripts/build, or set RQLOCK)" % (path, e))
    return _docs[path]


def modes(rqlock=None):
    """The binary's lock modes, in its registry's order."""
    return [m["name"] for m in load(rqlock)["modes"]]


def is_mode(name, rqlock=None):
    """Is @name one of the binary's lock modes (not a fio baseline)?"""
    return name in modes(rqlock)


def has_flag(mode, flag, rqlock=None):
    """Does lock mode @mode carry registry flag @flag ("shared_lock", ...)?"""
    return any(m["name"] == mode and flag in m["flags"] for m in load(rqlock)["modes"])


def primitives(rqlock=None):
    return list(load(rqlock)["primitives"])


class _Lazy(collections.abc.Sequence):
    """A list read from the binary on first use, so that importing a tool
    runs nothing (its --help, a test's import)."""

    def __init__(self, fn):
        self._fn, self._v = fn, None

    def _get(self):
        if self._v is None:
            self._v = list(self._fn())
        return self._v

    def __getitem__(self, i):
        return self._get()[i]

    def __len__(self):
        return len(self._get())

    def __add__(self, other):
        return self._get() + list(other)

    def __radd__(self, other):
        return list(other) + self._get()

    def __repr__(self):
        return repr(self._get())


# the binary's modes, and the order the tables and plots show modes in
MODES = _Lazy(modes)
MODE_ORDER = _Lazy(lambda: modes() + list(FIO_MODES))
