//! Privacy accountants, mechanisms and DP convex learners.
//!
//! # Modules
//! - [`accounting`]: what a release costs. [`Event`](accounting::Event)s describe a mechanism by
//!   public quantities, the RDP and PLD [`Accountant`](accounting::Accountant)s compose them into
//!   ε(δ) or δ(ε), and [`calibrate`](accounting::calibrate()) finds the noise for a target (ε, δ).
//!   Start here for any privacy number; the per-mechanism math (analytic Gaussian, subsampled
//!   Gaussian with and without replacement, objective perturbation, Neel et al., private
//!   selection, PLDs) sits in its submodules.
//! - [`learn`]: the DP learners (Algorithm 1, DP-SGD, OPSamp, Iyengar et al.'s and DPareto's
//!   algorithms), each a [`Mechanism`](learn::Mechanism) that pairs what it runs with its event,
//!   plus GLM losses, L-BFGS, metrics and private hyperparameter tuning. Use it to train a model.
//! - [`audit`]: empirical *lower* bounds on ε from audit runs (Clopper–Pearson threshold
//!   tests, the one-run audit, the Gaussian-DP estimate), to check a certificate against the
//!   implementation: a bound above the certified ε exposes a bug.
//! - [`bo`]: DPareto's multi-objective Bayesian optimisation (GP surrogates, Pareto fronts,
//!   hypervolumes, HV-PoI). Use it to reproduce DPareto's search over hyperparameters; it spends
//!   no privacy itself, its inputs are already-accounted runs.
//! - [`features`]: [`FeatureMatrix`](features::FeatureMatrix), the dense (row-major) or CSR
//!   matrix that datasets and learners share.
//! - [`error`]: [`DpError`] and [`Result`], and the `check_*` helpers that validate a privacy
//!   parameter and name it in the error.
//! - [`seed`]: seeds derived by hashing, so each cell and each run has its own random stream
//!   whatever the thread count or order.
//! - [`special`]: normal CDF and tail, log-sum-exp, ln Γ and friends in log space, for privacy
//!   bounds that live far in a tail where naive evaluation underflows to δ = 0.
//! - [`fast_exp`]: an `exp` within 2 ulp that compiles to SIMD, for learners' hot loops over
//!   every row; accountants use `f64::exp`.
//!
//! # Example
//! DP-SGD's privacy: 1000 steps, each on a Poisson subsample of rate 0.01 with Gaussian noise
//! of multiplier 1.1, accounted by RDP and by PLD; then the noise multiplier for ε = 1.
//! ```
//! use dp_core::accounting::subsampled_gaussian::dpsgd_bracket;
//! use dp_core::accounting::{
//!     Accountant, Event, PldAccountant, RdpAccountant, Target, calibrate, epsilon_of,
//! };
//!
//! let (q, steps, delta) = (0.01, 1000, 1e-5);
//! let event = Event::dpsgd(q, 1.1, steps)?;
//!
//! let mut rdp = RdpAccountant::new();
//! rdp.compose(&event, 1)?;
//! let eps_rdp = rdp.epsilon(delta)?;
//! // PLD tracks the whole privacy-loss distribution, so it is tighter than RDP (it also never
//! // reports more than RDP would: it takes the smaller of the two).
//! let eps_pld = epsilon_of(PldAccountant::new(), &event, delta)?;
//! assert!(0.5 < eps_pld && eps_pld < eps_rdp && eps_rdp < 2.0, "{eps_pld} {eps_rdp}");
//!
//! // The smallest noise multiplier that this accountant certifies at (ε, δ) = (1, 1e-5).
//! let target = Target::new(1.0, delta)?;
//! let z = calibrate(
//!     || rdp.fresh(),
//!     |z| Event::dpsgd(q, z, steps),
//!     target,
//!     dpsgd_bracket(q, steps, target)?,
//! )?;
//! let eps = epsilon_of(rdp.fresh(), &Event::dpsgd(q, z, steps)?, delta)?;
//! assert!(z > 1.1 && eps <= 1.0 && eps > 0.999, "z = {z}, ε = {eps}");
//! # Ok::<(), dp_core::DpError>(())
//! ```

pub mod accounting;
pub mod audit;
pub mod bo;
pub mod error;
pub mod fast_exp;
pub mod features;
pub mod learn;
pub mod seed;
pub mod special;

pub use error::{DpError, Result};
