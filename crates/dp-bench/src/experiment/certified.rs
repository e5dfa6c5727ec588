//! The engine's check that a stored ε keeps its method's promise: a cell of a certified (or
//! declared) calibration that reports an accuracy must certify at most its target ε. A
//! method never states its own ε (it returns the event of what ran and the runner certifies
//! it), so this catches a miscalibration, not a mislabelling; it runs on every new cell and
//! on every stored cell a run resumes from, so an edited `cells.log` cannot bring one back.

use super::config::Config;
use super::record::CellRecord;

/// Refuses `r` when its method promises its target and `r` reports an accuracy at an ε the
/// accountants certify above it. A release without guarantee (ε = ∞: an oracle that did not
/// prove its argmin, a failed run) is stored as such and every table shows it.
pub fn check(cfg: &Config, r: &CellRecord) -> anyhow::Result<()> {
    let Some(spec) = cfg.methods.get(&r.method) else {
        return Ok(());
    };
    let promised = matches!(
        spec.method.protocol().calibration,
        Some("certified" | "declared")
    );
    if promised && !r.accuracy.is_nan() && r.epsilon_accounted.is_finite() {
        anyhow::ensure!(
            r.epsilon_accounted <= r.epsilon,
            "method {:?} (kind {:?}), trial {}: a model released at target epsilon = {} \
             certifies epsilon = {}, above its target: its calibration is wrong, so the cell \
             is not used (key {})",
            r.method,
            r.kind,
            r.trial,
            r.epsilon,
            r.epsilon_accounted,
            r.key
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn record(method: &str, accuracy: f64, epsilon_accounted: f64) -> CellRecord {
        CellRecord {
            method: method.into(),
            kind: "x".into(),
            epsilon: 1.0,
            delta: 1e-5,
            trial: 0,
            seed: 1,
            accuracy,
            epsilon_accounted,
            wall_ms: 0.0,
            key: "k".into(),
            details: serde_json::json!({}),
        }
    }

    #[test]
    fn a_certified_accuracy_above_its_target_is_refused_and_nothing_else() {
        let text = "seed = 1\ntrials = 1\nepsilons = [1.0]\ndelta = 1e-5\n[dataset]\n\
                    name = \"adult\"\n[methods.a]\nkind = \"alg1\"\n[methods.c]\n\
                    kind = \"constant\"\n";
        let cfg = Config::parse(text, Path::new("x.toml")).unwrap();
        let e = check(&cfg, &record("a", 80.0, 1.01))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("\"a\"") && e.contains("1.01") && e.contains("target"),
            "{e}"
        );
        check(&cfg, &record("a", 80.0, 1.0)).unwrap();
        // No accuracy claimed, no guarantee (stored as ∞), or a method that promises nothing.
        check(&cfg, &record("a", f64::NAN, 3.0)).unwrap();
        check(&cfg, &record("a", 80.0, f64::INFINITY)).unwrap();
        check(&cfg, &record("c", 80.0, 5.0)).unwrap();
    }
}
