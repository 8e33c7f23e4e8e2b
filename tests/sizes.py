#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
sizes.py SRCDIR - no product C file past its folder's line limit, no
function past 100 lines (issue 36).

The product is every .c under lib/ jobfile/ locks/ queues/ devices/
results/ engine/ server/ cli/ of SRCDIR.  A file may have 1,500 lines;
a file of server/ 800.  A function is what the kernel's style makes of
one: a line that opens a body with '{' in column 0, after a header line
that names it, up to the next '}' in column 0; its length counts the
header's first line to the closing brace, as checkpatch and `wc` would.
Prints every file and function over its limit, one per line, with the
folder's limit, and exits 1 if there is one, 0 if none.
"""
import os
import re
import sys

FOLDERS = ("lib", "jobfile", "locks", "queues", "devices", "results", "engine", "server", "cli")
FILE_LIMIT = {"server": 800}
FILE_DEFAULT = 1500
FUNC_LIMIT = 100
ATTR = re.compile(r"__attribute__\s*\(\(.*?\)\)\s*")
HEADER = re.compile(r"^[A-Za-z_][^;=]*?\b([A-Za-z_]\w*)\s*\(")


def functions(lines):
    """(name, first line, length) of every function body in the file."""
    out = []
    i = 0
    while i < len(lines):
        if lines[i].rstrip("\n") == "{":
            # the header: back over its continuation lines to one that
            # starts in column 0 and names the function before '('
            start = i - 1
            while start > 0 and (lines[start][:1] in (" ", "\t") or lines[start].strip() == ""):
                start -= 1
            head = ATTR.sub("", lines[start]) if start >= 0 else ""
            m = HEADER.match(head)
            end = i + 1
            while end < len(lines) and not lines[end].startswith("}"):
                end += 1
            if m:
                out.append((m.group(1), start + 1, end - start + 1))
            i = end
        i += 1
    return out


def main(argv):
    if len(argv) != 2:
        print("usage: sizes.py SRCDIR", file=sys.stderr)
        return 2
    src = argv[1]
    bad = nfiles = nfuncs = 0
    for folder in FOLDERS:
        d = os.path.join(src, folder)
        if not os.path.isdir(d):
            continue
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if not f.endswith(".c"):
                    continue
                path = os.path.join(root, f)
                rel = os.path.relpath(path, src)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    lines = fh.readlines()
                nfiles += 1
                limit = FILE_LIMIT.get(folder, FILE_DEFAULT)
                if len(lines) > limit:
                    print(f"FAIL: {rel} has {len(lines)} lines ({folder}/ allows {limit})")
                    bad += 1
                for name, first, length in functions(lines):
                    nfuncs += 1
                    if length > FUNC_LIMIT:
                        print(f"FAIL: {rel}:{first}: {name}() has {length} lines (allowed {FUNC_LIMIT})")
                        bad += 1
    if nfiles < 50 or nfuncs < 500:
        print(f"FAIL: only {nfiles} files and {nfuncs} functions found in {src}: is SRCDIR right?")
        return 1
    if bad:
        return 1
    print(f"sizes: {nfiles} files and {nfuncs} functions within their limits")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
