"""dpbench.audit: bounds that can fail. A Gaussian mechanism's honest samples never give a
bound above its true ε; a mechanism with half the claimed noise is caught."""

import math
import random

import pytest

from dpbench import accounting as A
from dpbench import audit


def samples(shift, n, seed):
    rng = random.Random(seed)
    return [rng.gauss(0.0, 1.0) for _ in range(n)], [rng.gauss(shift, 1.0) for _ in range(n)]


def test_counts_bounds_are_monotone_and_checked():
    strong = audit.threshold_bound(10, 10000, 10, 10000, 1e-5)
    weak = audit.threshold_bound(100, 10000, 100, 10000, 1e-5)
    assert strong > weak > 0
    assert audit.threshold_bound(10, 10000, 10, 10000, 1e-5, confidence=0.999) < strong
    assert audit.gdp_bound(10, 10000, 10, 10000, 1e-5) >= strong
    assert audit.one_run_bound(1000, 200, 200, 1e-5) > audit.one_run_bound(1000, 200, 150, 1e-5)
    with pytest.raises(ValueError, match="false_positives"):
        audit.threshold_bound(11, 10, 0, 10, 1e-5)
    with pytest.raises(ValueError, match="confidence"):
        audit.threshold_bound(1, 10, 1, 10, 1e-5, confidence=1.0)


def test_the_split_audit_respects_the_truth_and_catches_a_lie():
    sigma = 1.0  # the Gaussian mechanism N(0, 1) vs N(1, 1): true ε at 1e-5 is ~4.4
    true_eps = A.epsilon({"type": "Gaussian", "noise_multiplier": sigma}, 1e-5)
    d, p = samples(1.0 / sigma, 20000, 3)
    honest = audit.threshold_audit(d, p, 1e-5)
    assert 0.5 < honest["epsilon"] <= true_eps
    gdp = audit.threshold_audit(d, p, 1e-5, statistic="gdp")
    assert honest["epsilon"] < gdp["epsilon"] <= true_eps
    # The same scores from a mechanism that claims σ = 4 (ε ≈ 0.9) refute the claim.
    claimed = A.epsilon({"type": "Gaussian", "noise_multiplier": 4.0}, 1e-5)
    assert honest["epsilon"] > claimed
    assert honest["negatives"] == honest["positives"] == 10000
    assert not math.isnan(honest["threshold"])
