"""dpbench.worker speaks dp-bench's outside-learner protocol: over a pipe, and (when
DPBENCH_BIN names a dp-bench binary) through the harness itself on a real config."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

LEARNER = textwrap.dedent('''
    """Output perturbation of the label-weighted row sum: the Gaussian mechanism."""
    import numpy as np
    from dpbench.accounting import calibrate
    from dpbench.worker import serve

    def declare(request):
        sigma = calibrate(lambda s: {"type": "Gaussian", "noise_multiplier": s},
                          request["epsilon"], request["delta"])
        return {"relation": "ADD_OR_REMOVE_ONE",
                "event": {"type": "Gaussian", "noise_multiplier": sigma}}

    def fit(request, x, y):
        d = declare(request)
        rows = np.asarray(x) / np.maximum(np.linalg.norm(x, axis=1), 1.0)[:, None]
        rng = np.random.default_rng(request["seed"])
        theta = rows.T @ np.asarray(y) + d["event"]["noise_multiplier"] * rng.standard_normal(x.shape[1])
        return {"theta": theta.tolist(), **d}

    if __name__ == "__main__":
        serve(fit, declare)
''')


@pytest.fixture
def learner(tmp_path):
    path = tmp_path / "learner.py"
    path.write_text(LEARNER)
    return path


def test_a_fit_request_over_a_pipe(learner, tmp_path):
    x = np.ones((5, 3))
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0])
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    requests = [
        {"id": 1, "method": "fit", "n": 5, "d": 3, "epsilon": 1.0, "delta": 1e-5, "seed": 4,
         "train_x": str(tmp_path / "x.npy"), "train_y": str(tmp_path / "y.npy")},
        {"id": 2, "method": "declare", "n": 5, "d": 3, "epsilon": 1.0, "delta": 1e-5},
        {"id": 3, "method": "fit", "n": 6, "d": 3, "epsilon": 1.0, "delta": 1e-5, "seed": 4,
         "train_x": str(tmp_path / "x.npy"), "train_y": str(tmp_path / "y.npy")},
    ]
    out = subprocess.run([sys.executable, str(learner)], check=True, capture_output=True,
                         text=True, input="".join(json.dumps(r) + "\n" for r in requests))
    fit, declared, bad = [json.loads(line) for line in out.stdout.splitlines()]
    assert fit["ok"] and fit["id"] == 1 and len(fit["theta"]) == 3
    assert declared["event"] == fit["event"] and declared["relation"] == "ADD_OR_REMOVE_ONE"
    assert not bad["ok"] and "do not match" in bad["error"]


@pytest.mark.skipif("DPBENCH_BIN" not in os.environ, reason="no dp-bench binary (DPBENCH_BIN)")
def test_the_harness_runs_a_learner_written_on_the_worker_api(learner, tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(textwrap.dedent(f'''
        seed = 1
        trials = 2
        epsilons = [1.0, 4.0]
        delta = 1e-5
        [dataset]
        name = "synthetic-l"
        subsample = 300
        [methods.mine]
        kind = "external"
        command = [{json.dumps(sys.executable)}, {json.dumps(str(learner))}]
        relation = "add_remove"
        timeout_seconds = 120
        output = "theta"
    '''))
    out = tmp_path / "out"
    run = subprocess.run([os.environ["DPBENCH_BIN"], "run", str(config), "--out", str(out),
                          "--quiet"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    cells = (out / "cells.csv").read_text().splitlines()
    assert len(cells) == 1 + 4, cells
    assert "mine" in pathlib.Path(out / "summary.md").read_text()
