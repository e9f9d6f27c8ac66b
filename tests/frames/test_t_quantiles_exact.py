"""Student t quantiles are exact to 1e-9 (they came from a 3-decimal table: t(4) = 2.776, not 2.7764451, so every
t interval of a batch of 2 to 31 scores was off in its 4th digit)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from noesis_nb.frames.intervals import mean_interval, t95, t_quantile

# t(0.975, df) to 15 significant digits, from arbitrary-precision arithmetic (the published tables' digits agree)
T975 = {
    1: 12.7062047361747, 2: 4.30265272974946, 3: 3.18244630528371, 4: 2.77644510519779, 5: 2.57058183563632,
    6: 2.44691185114497, 7: 2.36462425159279, 8: 2.30600413520417, 9: 2.26215716279821, 10: 2.22813885198627,
    11: 2.20098516009164, 12: 2.17881282966723, 13: 2.16036865646279, 14: 2.1447866879178, 15: 2.13144954555978,
    16: 2.11990529922125, 17: 2.10981557783332, 18: 2.10092204024104, 19: 2.09302405440831, 20: 2.08596344726586,
    21: 2.07961384472768, 22: 2.07387306790403, 23: 2.06865761041905, 24: 2.06389856162803, 25: 2.0595385527533,
    26: 2.05552943864287, 27: 2.05183051648029, 28: 2.04840714179525, 29: 2.0452296421327, 30: 2.04227245630124,
    60: 2.00029782201426, 120: 1.97993040508244,
}  # fmt: skip


@pytest.mark.parametrize("df", sorted(T975))
def test_t95_matches_the_published_quantile(df: int) -> None:
    assert abs(t95(df) - T975[df]) < 1e-9 * T975[df], (df, t95(df))


@pytest.mark.parametrize("p", [0.6, 0.9, 0.95, 0.975, 0.995, 0.9995])
def test_closed_forms_for_one_and_two_degrees_of_freedom(p: float) -> None:
    # df 1 is Cauchy's: tan(pi (p - 1/2)); df 2: (2p - 1) / sqrt(2 p (1 - p))
    assert math.isclose(t_quantile(p, 1), math.tan(math.pi * (p - 0.5)), rel_tol=1e-9)
    assert math.isclose(t_quantile(p, 2), (2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel_tol=1e-9)


def test_large_degrees_of_freedom_meet_the_normal() -> None:
    z = 1.959963984540054
    for df in (200, 1_000, 9_999, 10_000, 10_001, 10**6, 10**9):
        t = t95(df)
        # t(df) decreases to z, its first-order gap z (z^2 + 1) / (4 df)
        assert z < t and math.isclose(t - z, z * (z * z + 1) / (4 * df), rel_tol=3 / df**0.5 + 1e-3), df
    assert all(t95(d) > t95(d + 1) for d in range(1, 400))
    assert math.isnan(t95(0)) and math.isnan(t_quantile(0.975, float("nan")))


def test_a_batch_of_five_scores_gets_the_exact_interval() -> None:
    scores = np.array([0.0, 1.5, 3.0, 4.5, 6.0])
    mean, low, high = mean_interval(scores)
    half = T975[4] * scores.std(ddof=1) / math.sqrt(5)
    assert mean == 3.0 and abs(low - (3.0 - half)) < 1e-9 and abs(high - (3.0 + half)) < 1e-9
    assert abs(low - 0.0551352578) < 1e-9  # scipy.stats.t.interval(0.95, 4, 3, sem) gives 0.05513525778...
