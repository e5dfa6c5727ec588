//! DP convex learners: GLM losses, the clipped-gradient loss, the perturbed objective and
//! L-BFGS behind Algorithm 1 (Redberg et al. 2023), DP-SGD, and a non-private baseline.
//!
//! Every learner takes a [`data::GlmData`] (features, ±1 labels and cached norms, prepared
//! once per dataset) and a caller-seeded `rand::Rng`. Privacy parameters are calibrated by
//! [`crate::accounting`] and passed in.

pub mod alg1;
pub mod avent;
pub mod baseline;
pub mod clipped;
pub mod data;
mod dense_batch;
pub mod dpsgd;
pub mod iyengar;
pub mod laplace;
pub mod lbfgs;
pub mod loss;
pub mod mechanism;
pub mod metrics;
pub mod objective;
mod objpert_white_box;
pub mod opsamp;
pub mod optimizer;
pub mod poisson_sampler;
mod prefetch;
pub mod synthetic;
pub mod tuning;
pub mod white_box;

pub use alg1::{Alg1, Alg1Report, Alg1Spec};
pub use baseline::{fit_glm, logistic_regression};
pub use data::GlmData;
pub use dpsgd::{
    DpSgd, DpSgdOutput, DpSgdReport, dpsgd, dpsgd_white_box, expected_batch, poisson_schedule,
};
pub use lbfgs::{LbfgsOptions, LbfgsReport, LbfgsStatus};
pub use loss::{GlmLoss, beta, lipschitz};
pub use mechanism::{Mechanism, OutputPerturbation};
pub use metrics::{accuracy, accuracy_random_ties, mean_loss, multiclass_accuracy};
pub use opsamp::{OpSamp, OpSampParams, OpSampReport};
pub use optimizer::Optimizer;
pub use tuning::{
    Candidates, RepeatAndSelect, Selected, Tuned, best_of, draw_runs, log_grid, select_best,
};
pub use white_box::{NoisySteps, WhiteBox};
