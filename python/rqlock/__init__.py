"""rqlock's experiment tools: the run store, the metrics read from rqlock's
(and fio's) JSON, and the sweep, compare, plot and report commands.

    python3 -m rqlock sweep|compare|plot|report ...  (what `rqlock sweep` runs)

Modules:
  store    where things are (source tree or installed), the run store's
           files (manifest, point JSONs, summary.csv), resolve_run
  metrics  one table of metrics: how each is read from a point's JSON, its
           summary.csv columns, its title and whether higher is better
  sweep    runs job files over modes, primitives, drives and workers
  compare  tables of lock modes side by side
  plot     gnuplot PNG and SVG of a run
  report   one self-contained HTML page of a run (or two)
  manpage  rqlock(1), generated from `rqlock --help`
"""
