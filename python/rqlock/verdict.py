"""verdict: an expectation judged against the noise of the run that measured it.

A verdict is one of
  met                 the measurement is on the expected side of the bound,
                      beyond what noise alone gives
  NOT met             it is on the wrong side, by more than the noise floor
                      and outside the repeats' confidence interval
  inconclusive: ...   the noise measured in the same run could account for
                      the difference (said with the number)
and never a confident "NOT met" on a number inside the noise.

The noise floor is measured, not assumed: for a ratio (busy / idle p99),
the ratio between the largest and the smallest of measurements taken under
identical conditions in the same sweep (the floppy-idle group of every mode
and repeat: idle against idle); for a share (the delayed fraction), the
spread of those idle measurements in absolute terms.

Confidence intervals are bootstrap percentile intervals of the median over
repeats (resampled with a fixed seed, so the same run prints the same
interval); with one repeat there is no interval.
"""
import random
import statistics

MET, NOT_MET, INCONCLUSIVE = "met", "NOT met", "inconclusive"
BOOT = 2000         # bootstrap resamples
LEVEL = 0.90        # two-sided coverage of the printed intervals


def clean(xs):
    return [float(x) for x in xs if x is not None]


def bootstrap_ci(xs, stat=statistics.median, level=LEVEL, n=BOOT, seed=28):
    """(lo, hi): the percentile bootstrap interval of stat over the samples
    xs (repeats), or None with fewer than two."""
    xs = clean(xs)
    if len(xs) < 2:
        return None
    rnd = random.Random(seed)
    k = len(xs)
    vals = sorted(stat([xs[rnd.randrange(k)] for _ in range(k)]) for _ in range(n))
    a = (1 - level) / 2
    return vals[int(a * (n - 1))], vals[int((1 - a) * (n - 1))]


def paired_ratios(num, den):
    """Per-repeat ratios num[k] / den[k] (the same repeat of both groups,
    run one after the other), skipping missing or zero denominators."""
    return [a / b for a, b in zip(num, den) if a is not None and b]


def ratio_noise(groups):
    """The noise floor of a ratio: the largest over the smallest of the
    measurements pooled from groups (lists of samples taken under identical
    conditions), >= 1; None with fewer than two samples."""
    xs = [x for g in groups for x in clean(g) if x > 0]
    if len(xs) < 2:
        return None
    return max(xs) / min(xs)


def share_noise(groups):
    """The noise floor of a share (absolute): max - min of the pooled
    measurements; None with fewer than two."""
    xs = [x for g in groups for x in clean(g)]
    if len(xs) < 2:
        return None
    return max(xs) - min(xs)


def judge_ratio(value, bound, sense, noise=None, ci=None):
    """A ratio (1 = no effect) against a bound.  sense "le": expect
    value <= bound (no effect); "ge": expect value >= bound (an effect).
    noise: the idle/idle ratio of the same run (>= 1), the factor by which
    the ratio's denominator alone can move, or None when not measured;
    ci: (lo, hi) of value over repeats, or None.  The true ratio can lie
    anywhere in value / noise .. value x noise, so a value whose bound is
    inside that band is inconclusive, never NOT met.  Returns (verdict, text)."""
    if value is None:
        return INCONCLUSIVE, "inconclusive: not measured"
    nz = max(noise, 1.0) if noise is not None else 1.0
    sym = "<=" if sense == "le" else ">="
    ok = value <= bound if sense == "le" else value >= bound
    if ok:
        # an effect must stand out of the noise: a "ge" value no larger
        # than idle against idle proves nothing
        if sense == "ge" and value <= nz:
            return INCONCLUSIVE, "inconclusive: noise floor %.2fx >= %.2fx" % (nz, value)
        return MET, MET
    # the bound is inside the band the noise allows: "noise floor X >= the
    # factor between the value and the bound"
    reach = value / nz if sense == "le" else value * nz
    if (reach <= bound) if sense == "le" else (reach >= bound):
        gap = value / bound if sense == "le" else bound / value
        return INCONCLUSIVE, "inconclusive: noise floor %.2fx >= %.2fx off" % (nz, gap)
    if ci is not None and ((ci[0] <= bound) if sense == "le" else (ci[1] >= bound)):
        return INCONCLUSIVE, "inconclusive: repeats span %.2f..%.2fx %s %.2fx" % (ci[0], ci[1], sym, bound)
    return NOT_MET, NOT_MET


def judge_share(meas, pred, noise=None, rel=0.3, tol=0.01, ci=None):
    """A measured share (the delayed fraction) against its prediction:
    met within max(rel x pred, tol); NOT met when further off than that
    plus the noise floor (absolute, share_noise) and the repeats' interval
    does not reach the tolerance; else inconclusive."""
    if meas is None or pred is None:
        return INCONCLUSIVE, "inconclusive: not measured"
    allowed = max(rel * pred, tol)
    err = abs(meas - pred)
    if err <= allowed:
        return MET, MET
    nz = noise or 0.0
    if err <= allowed + nz:
        return INCONCLUSIVE, "inconclusive: noise floor +-%.2f%% >= %.2f%% off" % (100 * nz, 100 * (err - allowed))
    if ci is not None and ci[0] - allowed <= pred <= ci[1] + allowed:
        return INCONCLUSIVE, "inconclusive: repeats span %.2f..%.2f%%" % (100 * ci[0], 100 * ci[1])
    return NOT_MET, NOT_MET


def combine(primary, secondary):
    """The row's verdict: the primary judge's; a primary "inconclusive"
    becomes "met" when the secondary judge is met (never "NOT met" on the
    secondary's word: it is the less robust of the two)."""
    return MET if primary == INCONCLUSIVE and secondary == MET else primary


def fmt_ci(med, ci, f="%.2f", scale=1.0, unit=""):
    """ "med (lo..hi)UNIT" or "medUNIT" without an interval; values x scale."""
    if med is None:
        return "-"
    if ci is None:
        return (f % (med * scale)) + unit
    return (f + " (" + f + ".." + f + ")") % (med * scale, ci[0] * scale, ci[1] * scale) + unit


CHANGED, UNCHANGED = "changed", "unchanged within noise"


def ratio_ci(num, den, level=LEVEL, n=BOOT, seed=28):
    """(lo, hi): the bootstrap interval of median(num) / median(den), the
    two groups resampled independently (two runs: no pairing), or None
    when either has fewer than two samples."""
    a, b = clean(num), clean(den)
    if len(a) < 2 or len(b) < 2:
        return None
    rnd = random.Random(seed)
    vals = []
    for _ in range(n):
        d = statistics.median([b[rnd.randrange(len(b))] for _ in b])
        if d:
            vals.append(statistics.median([a[rnd.randrange(len(a))] for _ in a]) / d)
    if len(vals) < 2:
        return None
    vals.sort()
    lo = (1 - level) / 2
    return vals[int(lo * (len(vals) - 1))], vals[int((1 - lo) * (len(vals) - 1))]


def judge_change(a, b, floor_a=None, floor_b=None):
    """Run B against run A for one metric of one point: a, b the repeats'
    values.  Each run's noise is its repeats' spread (ratio_noise: largest
    over smallest), or, with one repeat, floor_a / floor_b, the spread the
    run measured elsewhere (None: not measured).  A median can move by its
    run's noise, so B / A moves by both: noise = noise_a x noise_b.  The
    change is "changed" when B / A is outside 1 / noise .. noise and the
    interval of the ratio (ratio_ci) leaves out 1; "unchanged within noise"
    when it is inside; "inconclusive" when no noise was measured.
    Returns (ratio, ci, noise, verdict, text)."""
    ma, mb = statistics.median(clean(a)) if clean(a) else None, statistics.median(clean(b)) if clean(b) else None
    if ma is None or mb is None or not ma:
        return None, None, None, INCONCLUSIVE, "inconclusive: not measured in both runs"
    r = mb / ma
    na = ratio_noise([a]) if len(clean(a)) > 1 else floor_a
    nb = ratio_noise([b]) if len(clean(b)) > 1 else floor_b
    ci = ratio_ci(b, a)
    if na is None or nb is None:
        return r, ci, None, INCONCLUSIVE, "inconclusive: no noise measured (one repeat)"
    nz = max(na, 1.0) * max(nb, 1.0)
    if (r > nz or r < 1 / nz) and (ci is None or not ci[0] <= 1 <= ci[1]):
        return r, ci, nz, CHANGED, "changed: %s %.3fx, beyond %.3f..%.3fx" % (
            "up" if r > 1 else "down", r if r > 1 else 1 / r, 1 / nz, nz)
    if r > nz or r < 1 / nz:
        return r, ci, nz, UNCHANGED, "unchanged within noise: the interval %.3f..%.3fx holds 1" % ci
    return r, ci, nz, UNCHANGED, "unchanged within noise: %.3fx inside %.3f..%.3fx" % (r, 1 / nz, nz)
