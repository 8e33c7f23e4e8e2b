"""layout: text that fits a terminal (issue 33).

Every table the tools print (compare, the quickstart, bench-all) goes
through table(): within WIDTH (100) columns it is printed as it is; wider,
in three steps, each only when the one before was not enough:

  1. a verdict's reason moves under the table as a numbered footnote: the
     cell "inconclusive: noise floor 2.60x >= 2.56x off" becomes
     "inconclusive [1]" and "[1] noise floor 2.60x >= 2.56x off" follows
     the table (the same reason twice is one footnote);
  2. a header wraps onto up to three lines, a column as wide as its widest
     cell or header word;
  3. the columns split into blocks, each within WIDTH, each repeating the
     key columns (the row's name: the mode, the job, the drive count).

Paragraphs wrap at WIDTH.  --wide gives the old layout: one line per row,
however long.
"""
import math
import re
import textwrap

WIDTH = 100
# the words a verdict cell leads with; what follows them is its reason
VERDICT_WORDS = ("NOT met", "inconclusive", "met")
NOTE_MIN = 16      # a cell this long or shorter keeps its reason in place


def wrap(text, width=WIDTH, indent=""):
    """A paragraph within width columns (words never split: a path longer
    than the line stays whole on a line of its own)."""
    return "\n".join(textwrap.fill(p, width, subsequent_indent=indent, break_long_words=False,
                                   break_on_hyphens=False) if p.strip() else p
                     for p in text.split("\n"))


class Notes:
    """Numbered footnotes of one table (or of a stream of rows)."""

    def __init__(self):
        self.items = []

    def add(self, text):
        if text not in self.items:
            self.items.append(text)
        return self.items.index(text) + 1

    def shorten(self, cell):
        """A verdict cell with its reason as a footnote: 'KEY [n]'; other
        cells as they are."""
        if len(cell) <= NOTE_MIN:
            return cell
        for w in VERDICT_WORDS:
            m = re.search(r"(?<![A-Za-z])%s\b:?\s*" % re.escape(w), cell)
            if m and cell[m.end():].strip():
                return "%s [%d]" % (cell[:m.start() + len(w)], self.add(cell[m.end():].strip()))
        return cell

    def lines(self, width=WIDTH):
        return [wrap("[%d] %s" % (i + 1, t), width, indent="    ") for i, t in enumerate(self.items)]


def _render(head_lines, body, widths, cols):
    out = []
    for hl in head_lines:
        if not any(hl[i] for i in cols):
            continue
        out.append("  ".join(hl[i].rjust(widths[i]) if i else hl[i].ljust(widths[i]) for i in cols).rstrip())
    for r in body:
        out.append("  ".join(str(r[i]).rjust(widths[i]) if i else str(r[i]).ljust(widths[i]) for i in cols).rstrip())
    return out


def _width(widths, cols):
    return sum(widths[i] for i in cols) + 2 * (len(cols) - 1)


def _head_wrap(h, w):
    return textwrap.wrap(h, w, break_long_words=False, break_on_hyphens=False) or [""]


def table(head, body, width=WIDTH, keys=1, wide=False):
    """The lines of a table within width columns (see the module's text);
    keys: how many leading columns name the row (repeated in each block)."""
    head = [str(h) for h in head]
    body = [[str(c) for c in r] for r in body]
    n = len(head)
    natural = [max([len(head[i])] + [len(r[i]) for r in body]) for i in range(n)]
    if wide or _width(natural, range(n)) <= width:
        return _render([head], body, natural, range(n))
    notes = Notes()
    body = [[notes.shorten(c) if i >= keys else c for i, c in enumerate(r)] for r in body]
    cells = [max([0] + [len(r[i]) for r in body]) for i in range(n)]
    widths = [max(cells[i], len(head[i])) for i in range(n)]
    if _width(widths, range(n)) > width:
        # headers onto up to three lines
        for i in range(n):
            word = max(len(x) for x in head[i].split()) if head[i].split() else 0
            w = max(cells[i], word, math.ceil(len(head[i]) / 3))
            while len(_head_wrap(head[i], w)) > 3:
                w += 1
            widths[i] = max(cells[i], max(len(x) for x in _head_wrap(head[i], w)))
    wrapped = [_head_wrap(h, widths[i]) for i, h in enumerate(head)]
    depth = max(len(x) for x in wrapped)
    # bottom-aligned header lines
    head_lines = [[(([""] * (depth - len(wrapped[i]))) + wrapped[i])[k] for i in range(n)] for k in range(depth)]
    keys = min(keys, n - 1) if n > 1 else n
    blocks, cur = [], list(range(keys))
    for i in range(keys, n):
        if len(cur) > keys and _width(widths, cur + [i]) > width:
            blocks.append(cur)
            cur = list(range(keys))
        cur.append(i)
    blocks.append(cur)
    out = []
    for b in blocks:
        if out:
            out.append("")
        out += _render(head_lines, body, widths, b)
    if notes.items:
        out += notes.lines(width)
    return out
