#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
circles.py OBJECTS_LIST - calls that run both ways inside a folder (issue 36).

OBJECTS_LIST names the product's object files, one per line (CMake's
$<TARGET_OBJECTS:...>, tests/CMakeLists.txt writes it).  From `nm` of each:
the functions it defines (T) and the symbols it needs (U).  File A calls
file B of the same folder when A needs a function B defines; data (a
registry's table naming each mode's ops) is not a call.  A circle is a path of such dependencies back to its
start: two files calling each other (through a shared header, so no
include shows it), or a ring of three.  Prints every circle, one per
line, and exits 1 if there is one, 0 if none.
"""
import os
import re
import subprocess
import sys


def folder_and_file(obj):
    """(folder, file) of an object CMake built from FOLDER/FILE.c."""
    m = re.search(r"\.dir/(?:.*/)?([^/]+)/([^/]+)\.c\.o$", obj)
    return (m.group(1), m.group(2) + ".c") if m else (os.path.dirname(obj), os.path.basename(obj))


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, needed = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            needed.add(parts[1])
        elif len(parts) == 3 and parts[1] == "T":
            defined.add(parts[2])
    return defined, needed


def cycles(g):
    found, state = [], {}

    def visit(m, path):
        state[m] = 1
        for n in sorted(g.get(m, ())):
            if state.get(n) == 1:
                c = path[path.index(n):]
                if sorted(c) not in [sorted(x) for x in found]:
                    found.append(c)
            elif not state.get(n):
                visit(n, path + [n])
        state[m] = 2

    for m in sorted(g):
        if not state.get(m):
            visit(m, [m])
    return found


def main(argv):
    with open(argv[1]) as f:
        objs = [x.strip() for x in f.read().split("\n") if x.strip()]
    by_folder = {}
    for o in objs:
        d, n = folder_and_file(o)
        by_folder.setdefault(d, {})[n] = symbols(o)
    bad = 0
    for d, files in sorted(by_folder.items()):
        owner = {s: n for n, (defs, _) in files.items() for s in defs}
        g = {n: {owner[s] for s in need if s in owner and owner[s] != n} for n, (_, need) in files.items()}
        for c in cycles(g):
            bad += 1
            ring = c + [c[0]]
            why = []
            for a, b in zip(ring, ring[1:]):
                syms = sorted(s for s in files[a][1] if owner.get(s) == b)
                why.append("%s -> %s (%s%s)" % (a, b, ", ".join(syms[:3]), ", ..." if len(syms) > 3 else ""))
            print("%s/: %s" % (d, "; ".join(why)))
    print("%d circle(s) in %d folders of %d objects" % (bad, len(by_folder), len(objs)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
