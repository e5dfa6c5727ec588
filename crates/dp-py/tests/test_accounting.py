"""dpbench.accounting against closed forms and dp_accounting 0.6.0: the same answer where
both are exact, never below an exact (or optimistic, i.e. lower) reference, and at most
dp_accounting's RDP bound where ours is the smaller of RDP and PLD."""

import json
import math
import random

import pytest
from scipy.stats import norm

import dp_accounting
from dp_accounting import dp_event as E
from dp_accounting.pld import privacy_loss_distribution as pldlib
from dp_accounting.rdp import rdp_privacy_accountant as rdplib

from dpbench import accounting as A

AR = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE


def gaussian_delta(sigma, eps):
    """Exact δ(ε) of the Gaussian mechanism with sensitivity 1 (Balle & Wang 2018)."""
    mu = 1.0 / sigma
    return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)


def exact_gaussian_epsilon(sigma, delta):
    lo, hi = 0.0, 100.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gaussian_delta(sigma, mid) > delta else (lo, mid)
    return hi


def their_rdp(event, delta):
    acc = rdplib.RdpAccountant(neighboring_relation=AR)
    return acc.compose(event).get_epsilon(delta)


def optimistic_dpsgd(q, z, steps, delta):
    """A lower estimate of DP-SGD's true ε: dp_accounting's optimistic PLD."""
    pld = pldlib.from_gaussian_mechanism(
        standard_deviation=z, sampling_prob=q, pessimistic_estimate=False,
        value_discretization_interval=1e-3)
    return pld.self_compose(steps).get_epsilon_for_delta(delta)


def test_forms_of_an_event_agree():
    ev = E.SelfComposedDpEvent(
        E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(1.1)), 1000)
    as_dict = A.dpsgd_event(0.01, 1.1, 1000)
    want = A.epsilon(as_dict, 1e-5)
    assert A.epsilon(ev, 1e-5) == want
    assert A.epsilon(json.dumps(as_dict), 1e-5) == want
    assert A.to_dict(ev) == as_dict
    composed = E.ComposedDpEvent([E.GaussianDpEvent(3.0), E.LaplaceDpEvent(2.0)])
    assert A.to_dict(composed) == {
        "type": "Composed",
        "events": [{"type": "Gaussian", "noise_multiplier": 3.0},
                   {"type": "Laplace", "noise_multiplier": 2.0}]}
    wor = E.SampledWithoutReplacementDpEvent(1000, 10, E.GaussianDpEvent(2.0))
    assert A.epsilon(wor, 1e-5, relation=A.REPLACE_ONE) > 0
    with pytest.raises(ValueError, match="ADD_OR_REMOVE_ONE"):
        A.epsilon(wor, 1e-5)  # sampling without replacement is a replace-one event
    # With replacement: the revealed-multiplicity bound, above the Poisson event's at the same
    # rate (which one pair of datasets shows is not a bound for it).
    swr = E.SelfComposedDpEvent(
        E.SampledWithReplacementDpEvent(1000, 50, E.GaussianDpEvent(0.5)), 100)
    revealed = A.epsilon(swr, 1e-6, relation=A.REPLACE_ONE)
    assert 60 < revealed < 70, revealed
    with pytest.raises(ValueError, match="ADD_OR_REMOVE_ONE"):
        A.epsilon(swr, 1e-6)
    # δ at that ε is the same closed form inverted, far below RDP's δ there.
    best = A.delta(swr, revealed, relation=A.REPLACE_ONE)
    assert 0 < best <= 1e-6 * (1 + 1e-6), best
    assert best < A.delta(swr, revealed, relation=A.REPLACE_ONE, accountant="rdp")


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.0, 5.0, 20.0])
def test_gaussian_is_the_exact_curve(sigma):
    for delta in [1e-3, 1e-5, 1e-8]:
        exact = exact_gaussian_epsilon(sigma, delta)
        ours = A.epsilon({"type": "Gaussian", "noise_multiplier": sigma}, delta)
        assert ours >= exact - 1e-9, (sigma, delta, ours, exact)
        assert ours <= exact * 1.01 + 1e-3, (sigma, delta, ours, exact)
        assert ours <= their_rdp(E.GaussianDpEvent(sigma), delta) + 1e-9


def test_random_dpsgd_events_are_between_optimistic_pld_and_rdp():
    rng = random.Random(7)
    for _ in range(12):
        q = 10 ** rng.uniform(-3, -0.5)
        z = rng.uniform(0.6, 3.0)
        steps = rng.randint(10, 3000)
        delta = 10 ** rng.uniform(-8, -4)
        ev = E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(z)), steps)
        ours = A.epsilon(ev, delta)
        rdp = A.epsilon(ev, delta, accountant="rdp")
        assert ours <= rdp + 1e-12
        assert ours <= their_rdp(ev, delta) + 1e-6, (q, z, steps, delta)
        low = optimistic_dpsgd(q, z, steps, delta)
        assert ours >= low - 1e-9, (q, z, steps, delta, ours, low)


def test_composed_events_compose():
    parts = [E.GaussianDpEvent(4.0),
             E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.05, E.GaussianDpEvent(1.5)), 200)]
    whole = A.epsilon(E.ComposedDpEvent(parts), 1e-6)
    assert whole > max(A.epsilon(p, 1e-6) for p in parts)
    assert whole <= their_rdp(E.ComposedDpEvent(parts), 1e-6) + 1e-6


def test_repeat_and_select_reads_dp_accountings_event():
    base = E.GaussianDpEvent(3.0)
    ev = E.RepeatAndSelectDpEvent(base, 10.0, math.inf)
    assert A.to_dict(ev)["shape"] is None
    ours = A.epsilon(ev, 1e-6)
    assert A.epsilon(base, 1e-6) < ours < math.inf
    assert ours <= their_rdp(ev, 1e-6) * 1.05 + 1e-6
    geometric = A.epsilon(E.RepeatAndSelectDpEvent(base, 10.0, 1.0), 1e-6)
    assert geometric > A.epsilon(base, 1e-6)


def test_delta_inverts_epsilon_and_degenerate_events():
    ev = A.dpsgd_event(0.02, 1.0, 500)
    eps = A.epsilon(ev, 1e-6)
    assert A.delta(ev, eps) <= 1e-6 * 1.001
    assert A.delta(ev, eps * 0.9) > 1e-6
    assert A.epsilon({"type": "NonPrivate"}, 1e-5) == math.inf
    assert A.delta({"type": "NonPrivate"}, 10.0) == 1.0
    assert A.epsilon({"type": "NoOp"}, 1e-5) == 0.0
    assert A.delta({"type": "EpsilonDelta", "epsilon": 1.0, "delta": 1e-6}, 2.0) <= 1e-6
    for bad, word in [({"type": "Gaussian", "noise_multiplier": 0.0}, "noise_multiplier"),
                      ({"type": "Gaussian"}, "noise_multiplier"),
                      ({"type": "Bogus"}, "unknown event type"),
                      (E.SingleEpochTreeAggregationDpEvent(1.0, 4), "not an event")]:
        with pytest.raises(ValueError, match=word):
            A.epsilon(bad, 1e-5)
    with pytest.raises(ValueError, match="accountant"):
        A.epsilon(ev, 1e-5, accountant="moments")


@pytest.mark.parametrize("accountant", ["best", "rdp", "pld"])
def test_calibration_never_lands_above_its_target(accountant):
    rng = random.Random(11)
    # A PLD calibration composes a fresh distribution per probe: fewer cases there.
    for _ in range(5 if accountant == "rdp" else 1):
        q = 10 ** rng.uniform(-3, -1)
        steps = rng.randint(50, 2000)
        target = rng.uniform(0.5, 8.0)
        z = A.dpsgd_noise_multiplier(q, steps, target, 1e-5, accountant=accountant)
        got = A.epsilon(A.dpsgd_event(q, z, steps), 1e-5, accountant=accountant)
        assert got <= target, (q, steps, target, z, got)
        assert got > target * 0.999, "calibration is not tight"
    sigma = A.calibrate(lambda s: E.GaussianDpEvent(s), 1.0, 1e-5, accountant=accountant)
    assert A.epsilon(E.GaussianDpEvent(sigma), 1e-5, accountant=accountant) <= 1.0
    steps = A.calibrate(
        lambda t: A.dpsgd_event(0.01, 1.0, int(t)), 2.0, 1e-5, start=100.0, lo=1.0,
        hi=1e6, increasing=True, accountant=accountant)
    assert A.epsilon(A.dpsgd_event(0.01, 1.0, int(steps)), 1e-5, accountant=accountant) <= 2.0


def test_calibration_passes_the_callables_exception_through():
    def broken(x):
        raise KeyError("from the callable")

    with pytest.raises(KeyError, match="from the callable"):
        A.calibrate(broken, 1.0, 1e-5)
    # Pessimistic against dp_accounting's own mechanism calibration: never above the target.
    theirs = dp_accounting.calibrate_dp_mechanism(
        lambda: rdplib.RdpAccountant(), E.GaussianDpEvent, 1.0, 1e-5)
    ours = A.calibrate(E.GaussianDpEvent, 1.0, 1e-5, accountant="rdp")
    assert ours <= theirs * 1.001 and their_rdp(E.GaussianDpEvent(ours), 1e-5) <= 1.0 + 1e-3


def test_degenerate_input_is_an_error_naming_the_value_never_a_number():
    g = {"type": "Gaussian", "noise_multiplier": 1.0}
    for bad in [0.0, 1.0, -1e-5, float("nan")]:
        with pytest.raises(ValueError, match="delta"):
            A.epsilon(g, bad)
    for bad in [-1.0, float("inf"), float("nan")]:
        with pytest.raises(ValueError, match="epsilon"):
            A.delta(g, bad)
    for args, word in [((0.0, 100, 1.0, 1e-5), "sampling-rate"), ((1.5, 100, 1.0, 1e-5), "sampling-rate"),
                       ((0.01, 0, 1.0, 1e-5), "steps"), ((0.01, 100, 0.0, 1e-5), "epsilon")]:
        with pytest.raises(ValueError, match=word):
            A.dpsgd_noise_multiplier(*args)
    with pytest.raises(ValueError, match="lo < start"):
        A.calibrate(lambda s: g, 1.0, 1e-5, lo=5.0, hi=1.0)
    with pytest.raises(json.JSONDecodeError):
        A.calibrate(lambda s: "not json", 1.0, 1e-5)
    # An absurd but legal composition is a huge ε, not an overflow or a hang.
    huge = A.epsilon({"type": "SelfComposed", "count": 10**18, "event": g}, 1e-5)
    assert math.isfinite(huge) and huge > 1e17
