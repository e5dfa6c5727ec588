"""ε, δ and calibration for events in dp_accounting's vocabulary, by dpbench's accountants.

An *event* is one of:

- a dict: ``{"type": "SelfComposed", "count": 1000, "event": {"type": "PoissonSampled",
  "sampling_probability": 0.01, "event": {"type": "Gaussian", "noise_multiplier": 1.1}}}``
  (the ``type`` is dp_accounting's class name without ``DpEvent``; the fields are its fields);
- the same as JSON text;
- a dp_accounting ``DpEvent`` object, read by class name and fields (dp_accounting itself is
  not imported).

Types: NoOp, NonPrivate, EpsilonDelta, Gaussian, Laplace, PoissonSampled,
SampledWithoutReplacement, SampledWithReplacement, SelfComposed, Composed, RepeatAndSelect
(``shape`` ∞ or None: K ~ Poisson). ``relation`` is ``"ADD_OR_REMOVE_ONE"`` (default) or
``"REPLACE_ONE"``, as in dp_accounting: PoissonSampled needs the first, both
SampledWith(out)Replacement the second. A Gaussian on batches drawn with replacement is
bounded by revealing how often the replaced row is drawn: valid, and far above the truth
(dp_accounting has no bound for it at all).

``accountant``: ``"rdp"`` (Rényi DP on dpbench's default orders), ``"pld"`` (privacy loss
distributions, where they take the event) or ``"best"`` (default): the smallest valid bound
among them, what ``dp-bench`` certifies. Every answer is an upper bound on the true ε (δ);
an event no accountant can bound raises ``ValueError``, and ``NonPrivate`` gives ε = ∞.
"""

import json
import math
from typing import Any, Callable, Mapping, Union

from . import _native

Event = Union[Mapping[str, Any], str, Any]

ADD_OR_REMOVE_ONE = "ADD_OR_REMOVE_ONE"
REPLACE_ONE = "REPLACE_ONE"

# dp_accounting's DpEvent classes and the fields the vocabulary reads from each.
_FIELDS = {
    "NoOp": (),
    "NonPrivate": (),
    "EpsilonDelta": ("epsilon", "delta"),
    "Gaussian": ("noise_multiplier",),
    "Laplace": ("noise_multiplier",),
    "PoissonSampled": ("sampling_probability", "event"),
    "SampledWithoutReplacement": ("source_dataset_size", "sample_size", "event"),
    "SampledWithReplacement": ("source_dataset_size", "sample_size", "event"),
    "SelfComposed": ("event", "count"),
    "Composed": ("events",),
    "RepeatAndSelect": ("event", "mean", "shape"),
}


def to_dict(event: Event) -> dict:
    """The event as a dict of the vocabulary (dicts and JSON text are checked by the Rust
    parser when used; dp_accounting objects are read by class name and fields)."""
    if isinstance(event, str):
        return json.loads(event)
    if isinstance(event, Mapping):
        return {k: _value(v) for k, v in event.items()}
    name = type(event).__name__
    kind = name[: -len("DpEvent")] if name.endswith("DpEvent") else name
    if kind not in _FIELDS:
        raise ValueError(
            f"{name} is not an event dpbench reads (dp_accounting class names: "
            + ", ".join(k + "DpEvent" for k in _FIELDS)
            + ")"
        )
    out = {"type": kind}
    for field in _FIELDS[kind]:
        out[field] = _value(getattr(event, field))
    if kind == "RepeatAndSelect" and out["shape"] is not None and math.isinf(out["shape"]):
        out["shape"] = None
    return out


def _value(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, Mapping):
        return {k: _value(x) for k, x in v.items()}
    return to_dict(v)


def to_json(event: Event) -> str:
    """The event as JSON text (non-finite numbers refused, except a RepeatAndSelect's
    infinite shape, written null)."""
    d = to_dict(event)
    _infinite_shapes_to_null(d)
    return json.dumps(d, allow_nan=False)


def _infinite_shapes_to_null(d: Any) -> None:
    if isinstance(d, list):
        for x in d:
            _infinite_shapes_to_null(x)
    elif isinstance(d, dict):
        shape = d.get("shape")
        if d.get("type") == "RepeatAndSelect" and isinstance(shape, float) and math.isinf(shape):
            d["shape"] = None
        for x in d.values():
            _infinite_shapes_to_null(x)


def epsilon(event: Event, delta: float, *, relation: str = ADD_OR_REMOVE_ONE,
            accountant: str = "best") -> float:
    """ε at δ of ``event``: an upper bound on its privacy loss (∞ for NonPrivate)."""
    return _native.epsilon(to_json(event), float(delta), relation, accountant)


def delta(event: Event, epsilon: float, *, relation: str = ADD_OR_REMOVE_ONE,
          accountant: str = "best") -> float:
    """δ at ε of ``event``: an upper bound (1 for NonPrivate)."""
    return _native.delta(to_json(event), float(epsilon), relation, accountant)


def dpsgd_event(sampling_probability: float, noise_multiplier: float, steps: int) -> dict:
    """DP-SGD's event: ``steps`` Poisson-sampled Gaussian steps (add/remove)."""
    return {
        "type": "SelfComposed",
        "count": int(steps),
        "event": {
            "type": "PoissonSampled",
            "sampling_probability": float(sampling_probability),
            "event": {"type": "Gaussian", "noise_multiplier": float(noise_multiplier)},
        },
    }


def dpsgd_noise_multiplier(sampling_probability: float, steps: int, epsilon: float,
                           delta: float, *, accountant: str = "best") -> float:
    """The smallest noise multiplier at which DP-SGD's event is certified at (ε, δ) by
    ``accountant``; the answer is re-checked and never certifies above ε."""
    return _native.dpsgd_noise_multiplier(
        float(sampling_probability), int(steps), float(epsilon), float(delta), accountant
    )


def calibrate(event_of: Callable[[float], Event], epsilon: float, delta: float, *,
              start: float = 1.0, lo: float = 0.0, hi: float = math.inf,
              increasing: bool = False, relation: str = ADD_OR_REMOVE_ONE,
              accountant: str = "best") -> float:
    """A parameter x of your mechanism such that ``event_of(x)`` is certified at (ε, δ).

    ``increasing=False`` (a noise scale): ε is non-increasing in x, and the smallest x in
    (lo, hi] meeting ε is returned. ``increasing=True`` (steps, a sampling rate): ε is
    non-decreasing in x, and the largest x in (lo, hi] meeting ε is returned. ``start`` seeds
    the search. As dp_accounting's ``calibrate_dp_mechanism``, the result's ε is never above
    the target; unlike it, the search runs in Rust and the answer is re-verified there.
    """
    return _native.calibrate(
        lambda x: to_json(event_of(x)), float(epsilon), float(delta), relation, accountant,
        float(start), float(lo), float(hi), bool(increasing),
    )
