"""Type stubs of dpbench's Rust extension; the documented API is dpbench.accounting and
dpbench.audit. Events are JSON text; every error is a ValueError with dp-core's message."""

def epsilon(event_json: str, delta: float, relation: str, accountant: str) -> float: ...
def delta(event_json: str, epsilon: float, relation: str, accountant: str) -> float: ...
def dpsgd_noise_multiplier(
    sampling_probability: float, steps: int, epsilon: float, delta: float, accountant: str
) -> float: ...
def calibrate(
    event_of: object,
    epsilon: float,
    delta: float,
    relation: str,
    accountant: str,
    start: float,
    lo: float,
    hi: float,
    increasing: bool,
) -> float: ...
def threshold_bound(
    false_positives: int,
    negatives: int,
    false_negatives: int,
    positives: int,
    delta: float,
    confidence: float,
) -> float: ...
def gdp_bound(
    false_positives: int,
    negatives: int,
    false_negatives: int,
    positives: int,
    delta: float,
    confidence: float,
) -> float: ...
def one_run_bound(
    canaries: int, guesses: int, correct: int, delta: float, confidence: float
) -> float: ...
def threshold_audit(
    scores_d: list[float],
    scores_d_prime: list[float],
    delta: float,
    confidence: float,
    statistic: str,
) -> dict[str, float]: ...
