//! Multi-objective Bayesian optimisation as DPareto runs it (Avent et al. 2020): Gaussian-process
//! surrogates, 2-D Pareto fronts and hypervolumes, the HV-PoI acquisition and its maximiser.

pub mod dpareto;
pub mod gp;
pub mod hvpoi;
pub mod kernel;
pub mod pareto;
pub mod search;
