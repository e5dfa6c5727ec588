"""A test learner for tests/external_cli.rs that misbehaves as `hyperparameters.mode` says:
honest (a least-squares theta declared as pure epsilon at the target: a false claim the
harness cannot see, used only to test the plumbing), overclaim (declares EpsilonDelta{2 epsilon, 0}), crash,
hang, spawn_and_hang (starts a child in a new session, writes its pid to
hyperparameters.pid_file, then hangs), zero_labels (zeroes the shared y.npy in place before
its fit), liar (declares Gaussian noise of multiplier 1000, in advance and with each fit, and
releases the exact least-squares theta), not_json, wrong_id, short_theta, nan_theta, unknown_event, wrong_relation, decline;
and for tuning: tuned (declares pure epsilon at the target, in advance and with each fit;
theta times hyperparameters.sign), switch (declares epsilon in advance, epsilon / 2 with the
fit), nodeclare (answers no declare request)."""

import json
import os
import sys
import time

import numpy as np

for line in sys.stdin:
    req = json.loads(line)
    mode = req["hyperparameters"].get("mode", "honest")
    if req["method"] == "declare":
        if mode == "nodeclare":
            out = {"id": req["id"], "ok": False, "error": "unknown method 'declare'"}
        else:
            out = {"id": req["id"], "ok": True, "relation": "ADD_OR_REMOVE_ONE",
                   "event": {"type": "EpsilonDelta", "epsilon": req["epsilon"], "delta": 0.0}}
        if mode == "liar":
            out["event"] = {"type": "Gaussian", "noise_multiplier": 1000.0}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
        continue
    if mode == "zero_labels":
        os.chmod(req["train_y"], 0o644)
        shared = np.load(req["train_y"], mmap_mode="r+", allow_pickle=False)
        shared[:] = 0.0
        shared.flush()
        del shared
    x = np.load(req["train_x"], mmap_mode="r", allow_pickle=False)
    y = np.load(req["train_y"], mmap_mode="r", allow_pickle=False)
    theta = np.linalg.lstsq(x, 2.0 * y - 1.0, rcond=None)[0].tolist()
    eps = req["epsilon"]
    out = {"id": req["id"], "ok": True, "theta": theta, "relation": "ADD_OR_REMOVE_ONE",
           "event": {"type": "EpsilonDelta", "epsilon": eps, "delta": 0.0}}
    theta = [t * req["hyperparameters"].get("sign", 1.0) for t in theta]
    out["theta"] = theta
    if mode == "liar":
        out["event"] = {"type": "Gaussian", "noise_multiplier": 1000.0}
    if mode == "switch":
        out["event"]["epsilon"] = eps / 2
    elif mode == "overclaim":
        out["event"]["epsilon"] = 2 * eps
    elif mode == "crash":
        print("boom: the learner fell over", file=sys.stderr, flush=True)
        os._exit(3)
    elif mode == "hang":
        print(f"pid {os.getpid()} sleeping", file=sys.stderr, flush=True)
        time.sleep(60)
    elif mode == "spawn_and_hang":
        import subprocess
        child = subprocess.Popen(["sleep", "600"], start_new_session=True)
        with open(req["hyperparameters"]["pid_file"], "w") as f:
            f.write(str(child.pid))
        time.sleep(600)
    elif mode == "not_json":
        sys.stdout.write("theta = [1, 2, 3]\n")
        sys.stdout.flush()
        continue
    elif mode == "wrong_id":
        out["id"] = req["id"] + 1000
    elif mode == "short_theta":
        out["theta"] = theta[:-1]
    elif mode == "nan_theta":
        out["theta"][0] = float("nan")  # json.dumps writes NaN, which is not JSON
    elif mode == "unknown_event":
        out["event"] = {"type": "ZCDp", "rho": 0.1, "xi": 0.0}
    elif mode == "wrong_relation":
        out["relation"] = "REPLACE_ONE"
    elif mode == "decline":
        out = {"id": req["id"], "ok": False, "error": "ConvergenceWarning: did not converge"}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
