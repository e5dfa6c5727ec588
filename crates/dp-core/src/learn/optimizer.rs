//! First-order update rules for DP-SGD: plain SGD and Adam (Kingma & Ba, as in PyTorch).

use crate::error::{Result, check_positive, ensure};

/// An update rule and its hyperparameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Optimizer {
    /// `θ ← θ − lr·g`.
    Sgd {
        /// Learning rate.
        lr: f64,
    },
    /// Adam with bias-corrected moments.
    Adam {
        /// Learning rate.
        lr: f64,
        /// First-moment decay.
        beta1: f64,
        /// Second-moment decay.
        beta2: f64,
        /// Denominator offset.
        eps: f64,
    },
}

impl Optimizer {
    /// Adam with the usual `(β₁, β₂, ε) = (0.9, 0.999, 1e-8)`.
    pub fn adam(lr: f64) -> Self {
        Optimizer::Adam {
            lr,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
        }
    }

    /// Plain SGD.
    pub fn sgd(lr: f64) -> Self {
        Optimizer::Sgd { lr }
    }

    /// The learning rate.
    pub fn lr(&self) -> f64 {
        match *self {
            Optimizer::Sgd { lr } | Optimizer::Adam { lr, .. } => lr,
        }
    }

    /// Checks the hyperparameters.
    pub fn validate(&self) -> Result<()> {
        check_positive("learning-rate", self.lr())?;
        if let Optimizer::Adam {
            beta1, beta2, eps, ..
        } = *self
        {
            ensure(
                (0.0..1.0).contains(&beta1),
                "adam-beta1",
                beta1,
                "must be in [0, 1)",
            )?;
            ensure(
                (0.0..1.0).contains(&beta2),
                "adam-beta2",
                beta2,
                "must be in [0, 1)",
            )?;
            check_positive("adam-eps", eps)?;
        }
        Ok(())
    }
}

/// An optimiser with its moment buffers.
#[derive(Clone, Debug)]
pub struct OptimizerState {
    opt: Optimizer,
    m: Vec<f64>,
    v: Vec<f64>,
    /// `β₁ᵗ`, `β₂ᵗ` (running products avoid `powi` per step).
    beta1_t: f64,
    beta2_t: f64,
}

impl OptimizerState {
    /// Fresh state for `d` parameters.
    pub fn new(opt: Optimizer, d: usize) -> Self {
        let moments = if matches!(opt, Optimizer::Adam { .. }) {
            d
        } else {
            0
        };
        OptimizerState {
            opt,
            m: vec![0.0; moments],
            v: vec![0.0; moments],
            beta1_t: 1.0,
            beta2_t: 1.0,
        }
    }

    /// One update of `theta` with gradient `grad`.
    #[inline]
    pub fn step(&mut self, theta: &mut [f64], grad: &[f64]) {
        match self.opt {
            Optimizer::Sgd { lr } => theta.iter_mut().zip(grad).for_each(|(t, g)| *t -= lr * g),
            Optimizer::Adam {
                lr,
                beta1,
                beta2,
                eps,
            } => {
                self.beta1_t *= beta1;
                self.beta2_t *= beta2;
                let step = lr / (1.0 - self.beta1_t);
                let inv_sqrt_bc2 = 1.0 / (1.0 - self.beta2_t).sqrt();
                for (((t, &g), m), v) in
                    theta.iter_mut().zip(grad).zip(&mut self.m).zip(&mut self.v)
                {
                    *m = beta1 * *m + (1.0 - beta1) * g;
                    *v = beta2 * *v + (1.0 - beta2) * g * g;
                    *t -= step * *m / (v.sqrt() * inv_sqrt_bc2 + eps);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgd_step_is_minus_lr_times_gradient() {
        let mut st = OptimizerState::new(Optimizer::sgd(0.5), 2);
        let mut th = vec![1.0, -1.0];
        st.step(&mut th, &[2.0, -4.0]);
        assert_eq!(th, vec![0.0, 1.0]);
    }

    #[test]
    fn adam_matches_a_direct_transcription() {
        let (lr, b1, b2, eps) = (0.01, 0.9, 0.999, 1e-8);
        let grads = [[1.0, -2.0], [0.5, 0.0], [-3.0, 1e-3], [2.0, 2.0]];
        let mut st = OptimizerState::new(Optimizer::adam(lr), 2);
        let mut th = vec![0.3, -0.7];
        let (mut m, mut v, mut expect) = ([0.0; 2], [0.0; 2], [0.3, -0.7]);
        for (t, g) in grads.iter().enumerate() {
            st.step(&mut th, g);
            let t = (t + 1) as i32;
            for j in 0..2 {
                m[j] = b1 * m[j] + (1.0 - b1) * g[j];
                v[j] = b2 * v[j] + (1.0 - b2) * g[j] * g[j];
                let mhat = m[j] / (1.0 - b1.powi(t));
                let vhat = v[j] / (1.0 - b2.powi(t));
                expect[j] -= lr * mhat / (vhat.sqrt() + eps);
            }
            for j in 0..2 {
                assert!((th[j] - expect[j]).abs() < 1e-14, "step {t}");
            }
        }
        // The first Adam step moves every coordinate with non-zero gradient by about lr.
        let mut st = OptimizerState::new(Optimizer::adam(0.1), 1);
        let mut th = vec![0.0];
        st.step(&mut th, &[1e-3]);
        assert!((th[0] + 0.1).abs() < 1e-5);
    }

    #[test]
    fn validation() {
        assert!(Optimizer::adam(0.1).validate().is_ok());
        assert!(Optimizer::adam(0.0).validate().is_err());
        assert!(
            Optimizer::Adam {
                lr: 0.1,
                beta1: 1.0,
                beta2: 0.9,
                eps: 1e-8
            }
            .validate()
            .is_err()
        );
        assert!(Optimizer::sgd(f64::NAN).validate().is_err());
    }
}
