//! Iyengar et al. 2019, *Towards Practical Differentially Private Convex Optimization*: the
//! algorithms as the authors' released code runs them (`calibration = "paper"`), and, beside
//! each, what this project certifies. `docs/reference/iyengar2019.md` §2 is followed for what
//! the code does (file:line into the authors' repository) and §2.8 for where it is not private.

pub mod paper_noise;
