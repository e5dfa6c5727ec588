//! Expansion of a config into independent cells, each with its own seed.
//!
//! A cell's seed is a hash of the master seed and the cell's key, so results do not depend
//! on thread count, order, or which cells were already finished in an earlier run.

use sha2::{Digest, Sha256};

pub use dp_core::seed::derive_seed;

use super::config::{Config, MethodSpec};

/// One unit of work: a method at one ε for one trial.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Method name (config key), e.g. `alg1`.
    pub method: String,
    /// Target ε.
    pub epsilon: f64,
    /// Trial index, 0-based.
    pub trial: u32,
    /// Seed of all randomness in this cell.
    pub seed: u64,
    /// Hash of everything that affects this cell's result (method, dataset, δ, seed, key).
    pub fingerprint: String,
}

impl Cell {
    /// Stable identity used to skip finished cells on resume.
    pub fn key(&self) -> String {
        format!(
            "{}|{}|{}|{}",
            self.method, self.epsilon, self.trial, self.fingerprint
        )
    }
}

fn method_fingerprint(cfg: &Config, spec: &MethodSpec) -> String {
    // Serialising through serde_json gives a canonical text of the parameters that matter.
    let mut method = spec.method.params();
    if let Some(obj) = method.as_object_mut() {
        obj.insert("kind".into(), spec.kind.into());
        let scheme = spec.method.scheme();
        if scheme != 0 {
            obj.insert("scheme".into(), scheme.into());
        }
    }
    let mut text = serde_json::json!({
        "method": method,
        "dataset": cfg.dataset,
        "delta": cfg.delta,
        "seed": cfg.seed,
    });
    // Only when set, so that the cells of configs without the key keep their keys.
    if let Some(r) = cfg.relation {
        text["relation"] = serde_json::to_value(r).expect("a relation serialises");
    }
    let text = text.to_string();
    let d = Sha256::digest(text.as_bytes());
    hex::encode(&d[..8])
}

/// All cells of a config, in a deterministic order.
pub fn expand(cfg: &Config) -> Vec<Cell> {
    let mut cells = Vec::new();
    for (name, method) in &cfg.methods {
        let fp = method_fingerprint(cfg, method);
        // A reference (non-private, deterministic) method is one cell: first ε, trial 0.
        let reference = method.method.reference();
        let epsilons = if reference {
            &cfg.epsilons[..1]
        } else {
            &cfg.epsilons[..]
        };
        let trials = if reference { 1 } else { cfg.trials };
        for &eps in epsilons {
            for trial in 0..trials {
                let seed = derive_seed(&[
                    &cfg.seed.to_le_bytes(),
                    name.as_bytes(),
                    &eps.to_bits().to_le_bytes(),
                    &trial.to_le_bytes(),
                ]);
                cells.push(Cell {
                    method: name.clone(),
                    epsilon: eps,
                    trial,
                    seed,
                    fingerprint: fp.clone(),
                });
            }
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const CONFIG: &str = r#"
seed = 3
trials = 1
epsilons = [0.1]
delta = 1e-6

[dataset]
name = "adult-iyengar"
normalize_rows = false
bias = 0

[methods.a]
kind = "ppsgd"
passes = [2]

[methods.b]
kind = "pfw"
steps = [5]
"#;

    #[test]
    fn a_method_scheme_enters_its_fingerprint_and_only_then() {
        let cfg = Config::parse(CONFIG, Path::new("t.toml")).unwrap();
        let text = |name: &str| {
            let spec = &cfg.methods[name];
            (spec.method.scheme(), method_fingerprint(&cfg, spec))
        };
        let ((scheme_a, fp_a), (scheme_b, fp_b)) = (text("a"), text("b"));
        assert_eq!((scheme_a, scheme_b), (1, 0));
        // The fingerprint of a scheme-0 method is the hash of its parameters alone, as before
        // schemes existed; a scheme-1 method's differs from that.
        let plain = |name: &str| {
            let spec = &cfg.methods[name];
            let mut m = spec.method.params();
            m.as_object_mut()
                .unwrap()
                .insert("kind".into(), spec.kind.into());
            let text = serde_json::json!({
                "method": m,
                "dataset": cfg.dataset,
                "delta": cfg.delta,
                "seed": cfg.seed,
            })
            .to_string();
            hex::encode(&Sha256::digest(text.as_bytes())[..8])
        };
        assert_eq!(fp_b, plain("b"));
        assert_ne!(fp_a, plain("a"));
    }
}
