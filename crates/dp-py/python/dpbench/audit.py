"""Lower bounds on ε from an audit: runs of a mechanism on two neighbouring datasets D and
D′, scored, and turned into "the mechanism is not (ε, δ)-DP for any ε below this", with a
stated confidence (dpbench's docs/audit.md and its reference).

- :func:`threshold_bound`: Clopper–Pearson bounds on the two error rates of one test fixed in
  advance ("guess D′ when the score exceeds t"); valid for every mechanism.
- :func:`threshold_audit`: the test dpbench runs on two score samples: the threshold chosen on
  the first half of each, the bound on the second halves (so the choice costs no validity).
- :func:`gdp_bound`: Nasr et al. 2023's estimate, a lower bound only where the mechanism's
  trade-off curve is exactly Gaussian (e.g. the Gaussian mechanism, full-batch DP-SGD seen
  white-box); elsewhere it can exceed the truth.
- :func:`one_run_bound`: Steinke, Nasr & Jagielski 2023, one training run with m canaries each
  included with probability ½, r guesses of which v are right.
"""

from typing import Sequence

from . import _native


def threshold_bound(false_positives: int, negatives: int, false_negatives: int,
                    positives: int, delta: float, confidence: float = 0.95) -> float:
    """ε lower bound from a fixed test's counts: ``false_positives`` of ``negatives`` runs on
    D guessed D′, ``false_negatives`` of ``positives`` runs on D′ guessed D."""
    return _native.threshold_bound(false_positives, negatives, false_negatives, positives,
                                   float(delta), float(confidence))


def gdp_bound(false_positives: int, negatives: int, false_negatives: int, positives: int,
              delta: float, confidence: float = 0.95) -> float:
    """The GDP estimate of the same counts: valid only for a Gaussian trade-off curve."""
    return _native.gdp_bound(false_positives, negatives, false_negatives, positives,
                             float(delta), float(confidence))


def one_run_bound(canaries: int, guesses: int, correct: int, delta: float,
                  confidence: float = 0.95) -> float:
    """The one-run audit's bound: ``correct`` of ``guesses`` guesses right."""
    return _native.one_run_bound(canaries, guesses, correct, float(delta), float(confidence))


def threshold_audit(scores_d: Sequence[float], scores_d_prime: Sequence[float], delta: float,
                    confidence: float = 0.95, statistic: str = "threshold") -> dict:
    """dpbench's split threshold test on per-run scores (higher means D′). Returns
    ``epsilon``, the chosen ``threshold`` and the evaluation counts. ``statistic="gdp"``
    chooses a threshold for and reports the GDP estimate (Gaussian trade-off curves only)."""
    return _native.threshold_audit([float(s) for s in scores_d],
                                   [float(s) for s in scores_d_prime], float(delta),
                                   float(confidence), statistic)
