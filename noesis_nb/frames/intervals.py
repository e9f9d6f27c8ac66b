"""95% confidence intervals: Wilson's score interval for a rate, Student's t for a mean (numpy only, no scipy)."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["Z95", "wilson", "t95", "mean_interval", "score_interval"]

Z95 = 1.959963984540054  # the normal distribution's 97.5% quantile
# Student's t 97.5% quantiles for 1..30 degrees of freedom (standard tables)
_T95: tuple[float, ...] = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160)
_T95 += (2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of the rate ``k / n``; (nan, nan) when ``n`` is 0."""
    if n <= 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def t95(df: int) -> float:
    """Student's t 97.5% quantile: the table up to 30 degrees of freedom, a Cornish–Fisher expansion beyond."""
    if df < 1:
        return math.nan
    if df <= len(_T95):
        return _T95[df - 1]
    z = Z95
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the mean of the finite values with its 95% Student t interval (nan bounds under 2 values)."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return math.nan, math.nan, math.nan
    # values near the float's limit (1e308) overflow a sum or a square: read in units of the largest, then scaled back
    scale = float(np.abs(x).max())
    scale = scale if scale > _SCALED_PAST else 1.0
    y = x / scale if scale != 1.0 else x
    mean = float(y.mean()) * scale
    if len(x) < 2:
        return mean, math.nan, math.nan
    half = t95(len(x) - 1) * float(y.std(ddof=1)) / math.sqrt(len(x)) * scale  # (as before when not scaled)
    return mean, mean - half, mean + half


_SCALED_PAST = 1e150  # a value past this may overflow a sum of a few (or its square): values are scaled first


def score_interval(values: np.ndarray, *, bools: bool) -> tuple[float, float, float]:
    """(mean, low, high) of scores: a share with Wilson's interval when the scores are bools (``bools``: the scorer
    returned True/False, recorded as JSON booleans; a t interval would reach below 0 and above 1), else
    ``mean_interval``'s (nan bounds under 2 values). A number on a wider scale that happened to be 0 or 1 each time
    (bugs found: 0, 1, 1, 0) is no share: the values alone do not say it is one."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) < 2 or not bools or not np.isin(x, (0.0, 1.0)).all():
        return mean_interval(x)
    k = float(x.sum())
    return k / len(x), *wilson(k, len(x))
