//! Sharing the ε-independent descent of the output-perturbation algorithms (P-PSGD,
//! P-SCPSGD) across the ε values of a sweep.
//!
//! Their non-private SGD does not depend on the privacy target, only the output noise does, so
//! a dishonest sweep runs each (point, trial, class) descent once and releases it at every ε
//! with that cell's own noise seed: 7× less work on the paper's ε grid. The descent's seed
//! comes from (config seed, method, trial, point, class), never from ε or the thread that
//! happens to compute it first, so results do not depend on thread count or order. Across ε the
//! releases of one trial then share their descent, as if the sweep had trained once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use dp_core::learn::{GlmData, OutputPerturbation};
use dp_core::seed::derive_seed;

use super::common::{Grid, Run};

/// A descent computed by the first cell that needs it (an error is kept as its message).
type Slot = Arc<OnceLock<Result<Vec<f64>, String>>>;

/// The descents of one method's sweep, by (point, trial, class).
#[derive(Debug, Default)]
pub struct Cache(Mutex<HashMap<(usize, u32, usize), Slot>>);

/// Which descent a run may share: its seed and the slot that holds it.
pub struct Shared {
    seed: u64,
    slot: Slot,
}

impl Cache {
    /// The descent of `point` in `trial` (`class` 0 for binary tasks) of the method named
    /// `method` under the config's master `seed`.
    pub fn shared(
        &self,
        seed: u64,
        method: &str,
        trial: u32,
        point: usize,
        class: usize,
    ) -> Shared {
        let slot = self
            .0
            .lock()
            .expect("descent cache lock")
            .entry((point, trial, class))
            .or_default()
            .clone();
        let seed = derive_seed(&[
            b"descent",
            &seed.to_le_bytes(),
            method.as_bytes(),
            &trial.to_le_bytes(),
            &(point as u64).to_le_bytes(),
            &(class as u64).to_le_bytes(),
        ]);
        Shared { seed, slot }
    }
}

/// The signature of [`run`]: a grid's [`super::common::Grid::DESCENT`].
pub type Hook<M> = fn(&M, &GlmData<'_>, u64, &Shared) -> dp_core::Result<Run>;

/// Takes the shared descent of `mech` (running it if first) and releases it with noise from
/// `seed`.
pub fn run<G>(
    mech: &G::Mech,
    data: &GlmData<'_>,
    seed: u64,
    shared: &Shared,
) -> dp_core::Result<Run>
where
    G: Grid,
    G::Mech: OutputPerturbation,
{
    let theta = shared
        .slot
        .get_or_init(|| mech.descend(data, shared.seed).map_err(|e| e.to_string()))
        .clone()
        .map_err(dp_core::DpError::Invalid)?;
    let (theta, report) = mech.release(theta, seed);
    Ok(Run {
        theta,
        event: G::ran(mech, &report),
        noise: G::noise(&report),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::iyengar::permutation::PpsgdGrid;
    use dp_core::accounting::Target;
    use dp_core::features::FeatureMatrix;
    use dp_core::learn::GlmLoss;
    use dp_core::learn::iyengar::Calibration;
    use dp_core::learn::iyengar::permutation::PpsgdSpec;

    #[test]
    fn a_trials_epsilons_share_one_descent_and_nothing_else() {
        let cache = Cache::default();
        let a = cache.shared(7, "ppsgd", 0, 3, 0);
        let b = cache.shared(7, "ppsgd", 0, 3, 0);
        assert!(Arc::ptr_eq(&a.slot, &b.slot) && a.seed == b.seed);
        for other in [
            cache.shared(8, "ppsgd", 0, 3, 0),
            cache.shared(7, "other", 0, 3, 0),
            cache.shared(7, "ppsgd", 1, 3, 0),
            cache.shared(7, "ppsgd", 0, 4, 0),
            cache.shared(7, "ppsgd", 0, 3, 1),
        ] {
            assert_ne!(other.seed, a.seed);
        }

        let x = FeatureMatrix::dense(
            (0..40)
                .map(|k| ((k * 7 % 11) as f64 / 11.0) - 0.5)
                .collect(),
            20,
            2,
        );
        let y: Vec<f64> = (0..20)
            .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
            .collect();
        let data = GlmData::new(&x, &y).unwrap();
        let spec = PpsgdSpec {
            loss: GlmLoss::Logistic,
            lipschitz: 1.0,
            lr: 0.1,
            passes: 3,
            batch: 5,
        };
        let rdp = dp_core::accounting::RdpAccountant::new();
        let mech = |eps| {
            spec.build(
                Calibration::Paper,
                20,
                Target::new(eps, 1e-5).unwrap(),
                &rdp,
            )
            .unwrap()
        };
        let (one, tenth) = (mech(1.0), mech(0.1));
        let first = run::<PpsgdGrid>(&one, &data, 1, &a).unwrap();
        let second = run::<PpsgdGrid>(&tenth, &data, 2, &b).unwrap();
        // The second release is the ε = 0.1 mechanism's noise on the first run's descent.
        let descent = one.descend(&data, a.seed).unwrap();
        assert_eq!(first.theta, one.release(descent.clone(), 1).0);
        assert_eq!(second.theta, tenth.release(descent, 2).0);
        assert_ne!(first.theta, second.theta);
        assert!(second.noise > first.noise);
    }
}
