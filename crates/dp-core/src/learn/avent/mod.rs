//! DP-SGD and DP-Adam as Avent et al. (2020, DPareto) train their models: lots of exactly `m`
//! records drawn uniformly without replacement at every step, per-example gradients clipped to
//! one global L2 norm `L`, Gaussian noise `N(0, (2zL/m)²)` on the mean clipped gradient (the
//! replace-one sensitivity of the mean is `2L/m`), a constant learning rate, and the last
//! iterate released. Models: linear (logistic regression, hinge SVM; [`train_linear`]) on
//! sparse rows, and ReLU MLPs with a softmax output ([`train_mlp`]) on dense rows.
//!
//! What the authors' code does that the paper does not say (reference notes §1.9, §3.2):
//! Xavier-normal initialisation with magnitude 3 for weights *and* biases ([`Init::Code`]; the
//! paper's θ₀ = 0 is [`Init::Paper`]); `T = round(epochs · round(n/m))` steps; training stops
//! at the first non-finite loss or parameter but all `T` steps are still charged.
//!
//! [`LinearLearner`] and [`MlpLearner`] pair a run with its privacy [`crate::accounting::Event`]
//! (module `learner`), which is what DPareto's privacy oracle accounts.

pub mod bolton;
mod dense;
mod descent;
mod hyper;
mod learner;
mod linear;
mod lots;
mod mlp;
mod noise;
pub mod svt;
pub mod svt_pair;

pub use dense::DenseData;
pub use hyper::{Hyper, Init, round_half_even, steps};
pub use learner::{AventReport, DenseMechanism, LinearLearner, MlpLearner, Recipe};
pub use linear::{LinearModel, LinearRun, train_linear};
pub use mlp::{Mlp, MlpRun, train_mlp};
pub use noise::{add_mean_noise, xavier_normal};
