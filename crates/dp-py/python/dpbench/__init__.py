"""dpbench: privacy accountants, calibration and audit statistics from dpbench's Rust core.

- :mod:`dpbench.accounting`: ε and δ of an event (RDP, PLD, or the smaller of the two),
  calibration of DP-SGD's noise and of any parameter of your own mechanism.
- :mod:`dpbench.audit`: lower bounds on ε from an audit's counts or scores.
- :mod:`dpbench.worker`: the protocol by which ``dp-bench`` runs an outside learner.

Events are dicts in dp_accounting's vocabulary (``{"type": "Gaussian",
"noise_multiplier": 1.1}``), their JSON text, or dp_accounting ``DpEvent`` objects.
"""

from . import accounting, audit
from .accounting import delta, dpsgd_noise_multiplier, epsilon

__all__ = ["accounting", "audit", "delta", "dpsgd_noise_multiplier", "epsilon"]
__version__ = "0.1.0"
