"""IBM diffprivlib's LogisticRegression (objective perturbation, Chaudhuri, Monteleoni &
Sarwate 2011) as a dp-bench external learner.

Called so that its guarantee holds (see /work/shared/reference/benchmark.md §3 and
docs/external-learners.md): rows scaled to norm <= 1 here (each row by its own norm, so no
privacy cost) and data_norm=1.0 given, never read off the data; no intercept (the config's
bias feature stands for it, inside the norm bound); a fresh BudgetAccountant per request; and
a ConvergenceWarning fails the request, since the proof assumes the exact minimiser.

Declares pure epsilon-DP, EpsilonDelta{epsilon, 0}, for REPLACE_ONE neighbours: diffprivlib's
analysis replaces one record of a dataset of public size n.

Hyperparameters: C (inverse regularisation, default 1.0), max_iter (1000), tol (1e-6).
Deterministic given the request's seed.
"""

import warnings

import numpy as np
from diffprivlib import BudgetAccountant
from diffprivlib.models import LogisticRegression
from diffprivlib.utils import PrivacyLeakWarning
from sklearn.exceptions import ConvergenceWarning

from dpbench.worker import serve


def declare(request):
    """The event of a fit: pure epsilon-DP at the requested epsilon, whatever C is."""
    return {
        "relation": "REPLACE_ONE",
        "event": {"type": "EpsilonDelta", "epsilon": float(request["epsilon"]), "delta": 0.0},
    }


def fit(request, x, y):
    hp = request.get("hyperparameters") or {}
    eps = float(request["epsilon"])
    norms = np.linalg.norm(x, axis=1)
    rows = np.asarray(x) / np.maximum(norms, 1.0)[:, None]
    with warnings.catch_warnings():
        # Either warning means the guarantee does not hold: fail rather than release.
        warnings.simplefilter("error", ConvergenceWarning)
        warnings.simplefilter("error", PrivacyLeakWarning)
        clf = LogisticRegression(
            epsilon=eps,
            data_norm=1.0,
            fit_intercept=False,
            C=float(hp.get("C", 1.0)),
            max_iter=int(hp.get("max_iter", 1000)),
            tol=float(hp.get("tol", 1e-6)),
            random_state=int(request["seed"]) % 2**32,
            accountant=BudgetAccountant(),
        )
        clf.fit(rows, np.asarray(y))
    if list(clf.classes_) != [0.0, 1.0]:
        raise ValueError(f"expected classes [0, 1], got {clf.classes_}")
    return {"theta": clf.coef_.ravel().tolist(), **declare(request)}


if __name__ == "__main__":
    serve(fit, declare)
