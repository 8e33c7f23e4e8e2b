"""The package's modules import one way (issue 36): store at the bottom,
registry over it, fleet and sweep over those, the commands on top; no
module imports another that imports it back, directly or round a circle.
Every import counts, those inside functions too (an import deferred to
run time is still a dependency)."""
import ast
import importlib.util
import os
import unittest

PKG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rqlock")


def imports_of(path):
    """The package modules a module imports, at any depth."""
    out = set()
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:           # from .store import x
                out.add(node.module.split(".")[0])
            elif node.level == 1:                         # from . import store, sweep
                out.update(a.name for a in node.names)
            elif node.module and node.module.split(".")[0] == "rqlock":
                parts = node.module.split(".")
                out.update([parts[1]] if len(parts) > 1 else [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "rqlock" and len(parts) > 1:
                    out.add(parts[1])
    return out


def graph():
    mods = {n[:-3]: os.path.join(PKG, n) for n in os.listdir(PKG) if n.endswith(".py")}
    return {m: sorted(imports_of(p) & set(mods)) for m, p in mods.items()}


def _circles():
    """tests/circles.py, whose cycles() finds the C files' circles too."""
    path = os.path.join(os.path.dirname(os.path.dirname(PKG)), "tests", "circles.py")
    spec = importlib.util.spec_from_file_location("circles", os.path.normpath(path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


cycles = _circles().cycles


class TestImports(unittest.TestCase):
    def test_finds_a_circle(self):
        # the check itself: store -> sweep -> store and fleet -> store -> sweep -> fleet,
        # as it was before issue 36
        self.assertEqual(cycles({"store": ["sweep"], "sweep": ["fleet", "store"], "fleet": ["store"]}),
                         [["fleet", "store", "sweep"], ["store", "sweep"]])
        self.assertEqual(cycles({"a": ["b"], "b": ["c"], "c": []}), [])

    def test_package_has_no_circle(self):
        g = graph()
        self.assertIn("store", g["sweep"])      # the graph is read, not empty
        self.assertEqual(cycles(g), [], "import circles: %s" % cycles(g))

    def test_store_is_the_bottom(self):
        self.assertEqual(graph()["store"], [])


if __name__ == "__main__":
    unittest.main()
