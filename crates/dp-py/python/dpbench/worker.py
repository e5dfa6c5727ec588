"""The worker side of dp-bench's outside-learner protocol (dpbench's docs/external-learners.md).

A learner is its algorithm and nothing else: its module calls ``serve(fit, declare)``: one request per line on stdin, one response
per line on stdout, ``id`` echoed. ``fit(request, x, y)`` gets the request and the training
arrays (memory-mapped, read-only) and returns a dict with ``theta`` (or ``predictions``),
``relation`` and ``event``. ``declare(request)`` (needed only when the harness tunes the
learner honestly) gets a request without data or seed and returns the ``relation`` and
``event`` a fit with the same n, d, epsilon, delta and hyperparameters would return; the
harness checks that every fit declares exactly that. An exception becomes
``{"ok": false, "error": ...}`` for that request only. Logs go to stderr, never stdout (stdout carries the protocol).
"""

import json
import sys
import traceback



def load(path):
    """An array the harness wrote, mapped read-only; never unpickled (needs numpy)."""
    import numpy as np

    return np.load(path, mmap_mode="r", allow_pickle=False)


def serve(fit, declare=None):
    """Answers requests until stdin closes."""
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        rid = request.get("id")
        try:
            method = request.get("method")
            if method == "declare" and declare is not None:
                response = {"id": rid, "ok": True, **declare(request)}
            elif method == "fit":
                x = load(request["train_x"])
                y = load(request["train_y"])
                if x.shape != (request["n"], request["d"]) or y.shape != (request["n"],):
                    raise ValueError(f"arrays {x.shape}, {y.shape} do not match n, d")
                response = {"id": rid, "ok": True, **fit(request, x, y)}
            else:
                raise ValueError(f"unknown method {method!r}")
            # allow_nan=False: a non-finite value fails here, not as invalid JSON downstream.
            text = json.dumps(response, allow_nan=False)
        except Exception as e:  # one request fails, the worker goes on
            traceback.print_exc(file=sys.stderr)
            text = json.dumps({"id": rid, "ok": False, "error": f"{type(e).__name__}: {e}"})
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
