//! Redberg, Koskela & Wang (2023), *Improving the Privacy and Practicality of Objective
//! Perturbation for Differentially Private Linear Learners*: Figures 1–5 and Tables 1–2,
//! regenerated from the accountants (Figures 1, 3, 4, 5) and from experiment results on disk
//! (Figure 2, Tables 1–2; configs in `configs/redberg2023/`).

pub mod fig1_objpert_bounds;
pub mod fig2_accuracy;
pub mod fig3_rdp_curves;
pub mod fig4_composition;
pub mod fig5_objpert_vs_dpsgd;
pub mod tables;

use std::path::Path;

use dp_core::accounting::objpert::ObjPert;

use super::PaperSpec;
use crate::figures::Outcome;

/// The paper's entry in [`super::PAPERS`].
pub const SPEC: PaperSpec = PaperSpec {
    id: "redberg2023",
    title: "Redberg, Koskela & Wang 2023: objective perturbation vs honest/dishonest DP-SGD",
    configs: &[
        "adult",
        "adult-iyengar",
        "synthetic-l",
        "synthetic-h",
        "gisette",
    ],
    figures,
};

/// Regenerates every figure and table into `out`, reading experiment results from
/// `<results>/<config stem>/summary.csv`.
pub fn figures(out: &Path, results: &Path) -> anyhow::Result<Vec<Outcome>> {
    std::fs::create_dir_all(out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    Ok(vec![
        Outcome::Written(fig1_objpert_bounds::write(out)?),
        Outcome::Written(fig3_rdp_curves::write(out)?),
        Outcome::Written(fig4_composition::write(out)?),
        Outcome::Written(fig5_objpert_vs_dpsgd::write(out)?),
        fig2_accuracy::write(out, results)?,
        tables::write(out, results)?,
    ])
}

/// Objective perturbation parameters of one panel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setting {
    /// Noise σ of the linear perturbation.
    pub sigma: f64,
    /// Per-example Hessian bound β.
    pub beta: f64,
    /// Regularisation λ.
    pub lambda: f64,
    /// Gradient norm bound L.
    pub lipschitz: f64,
}

impl Setting {
    /// The accountant for these parameters.
    pub fn objpert(&self) -> anyhow::Result<ObjPert> {
        Ok(ObjPert::new(
            self.sigma,
            self.lambda,
            self.beta,
            self.lipschitz,
        )?)
    }

    /// Machine-readable label used in the CSVs: `sigma=5;beta=1;lambda=20` (plus `;L=…` when L ≠ 1).
    pub fn id(&self) -> String {
        let mut s = format!(
            "sigma={};beta={};lambda={}",
            self.sigma, self.beta, self.lambda
        );
        if self.lipschitz != 1.0 {
            s.push_str(&format!(";L={}", self.lipschitz));
        }
        s
    }

    /// Human-readable label for titles: `σ = 5, β = 1, λ = 20, L = 1`.
    pub fn title(&self) -> String {
        format!(
            "σ = {}, β = {}, λ = {}, L = {}",
            self.sigma, self.beta, self.lambda, self.lipschitz
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::label_value;

    #[test]
    fn setting_labels() {
        let s = Setting {
            sigma: 5.0,
            beta: 1.0,
            lambda: 20.0,
            lipschitz: 1.0,
        };
        assert_eq!(s.id(), "sigma=5;beta=1;lambda=20");
        assert_eq!(label_value(&s.id(), "lambda"), Some(20.0));
    }
}
