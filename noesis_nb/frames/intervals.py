"""95% confidence intervals: Wilson's score interval for a rate, Student's t for a mean (numpy only, no scipy)."""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["Z95", "wilson", "t95", "t_quantile", "mean_interval", "score_interval"]

Z95 = 1.959963984540054  # the normal distribution's 97.5% quantile


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of the rate ``k / n``; (nan, nan) when ``n`` is 0."""
    if n <= 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def t95(df: int) -> float:
    """Student's t 97.5% quantile for ``df`` degrees of freedom (what a 95% two-sided interval multiplies by), to
    about 1e-12: ``t_quantile(0.975, df)``. A table to 3 decimals (t(4) = 2.776, not 2.7764451) put intervals off
    in their 4th digit."""
    return t_quantile(0.975, df)


@functools.lru_cache(maxsize=256)
def t_quantile(p: float, df: float) -> float:
    """Student's t ``p`` quantile (0.5 <= ``p`` < 1) for ``df`` > 0 degrees of freedom; nan for ``df`` < 1 or nan.

    Found by bisection on t of the two-sided tail ``I(df / (df + t²); df/2, 1/2) = 2(1 - p)`` (the regularized
    incomplete beta, ``_incomplete_beta``), each bound computed without cancellation: exact to about 1e-12, where
    scipy is not a dependency. Past 10**4 degrees of freedom, Cornish–Fisher's expansion (its error ~ df**-3)."""
    if not df >= 1 or not 0.5 <= p < 1:
        return math.nan
    if p == 0.5:
        return 0.0
    tail = 2.0 * (1.0 - p)
    if df > 1e4:
        z = _normal_quantile(p)
        return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
    a, low, high = df / 2.0, 0.0, 1.0
    while _tail(high, df, a) > tail:
        low, high = high, high * 2.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if mid in (low, high):
            break
        if _tail(mid, df, a) > tail:
            low = mid
        else:
            high = mid
    return (low + high) / 2.0


def _tail(t: float, df: float, a: float) -> float:
    """P(|T| > t) for Student's t with ``df`` degrees of freedom: I(x; df/2, 1/2), x = df / (df + t²)."""
    t2 = t * t
    return _incomplete_beta(a, 0.5, df / (df + t2), t2 / (df + t2))


def _incomplete_beta(a: float, b: float, x: float, y: float) -> float:
    """The regularized incomplete beta I(x; a, b), ``y`` = 1 - x given exactly (a continued fraction, Lentz's method)."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, y) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The incomplete beta's continued fraction (converging for x < (a + 1) / (a + b + 2))."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        for num in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def _normal_quantile(p: float) -> float:
    """The standard normal ``p`` quantile (bisection on ``math.erfc``)."""
    low, high = 0.0, 40.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if mid in (low, high):
            break
        if 0.5 * math.erfc(mid / math.sqrt(2.0)) > 1.0 - p:
            low = mid
        else:
            high = mid
    return (low + high) / 2.0


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
