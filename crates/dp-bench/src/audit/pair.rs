//! The two neighbouring datasets of an audit and the statistic that tells them apart.
//!
//! **Canary** (after ClipBKD, Jagielski et al. 2020): a row along the feature the base rows use
//! least — an unused one-hot column where the data have one — at the largest value the public
//! preprocessing bound allows, plus the bias feature the preprocessing appends. No other row
//! pulls θ along that feature, so θ's coordinate there is moved by the canary and the noise
//! alone; the statistic is that coordinate.
//!
//! **Threat model.** The canary is a legal row *after* preprocessing: its core has ℓ2 norm at
//! most the public bound the calibration assumes (1 for normalised rows, the `clip_row_norm`
//! bound otherwise) and its coordinates respect `clip_linf`; a method's own row clipping is
//! applied to both datasets as to any row. A proof "for all neighbouring datasets" covers it.
//!
//! **Relations** (audit.md §2): add/remove-one pairs (D, D ∪ {canary with label +1}) for
//! mechanisms proved under add/remove; replace-one pairs (D₀ ∪ {canary, −1}, D₀ ∪ {canary,
//! +1}), n fixed, for mechanisms proved under replace-one (Iyengar et al.'s). Measuring a
//! replace-one pair against an add/remove proof would be a group of two and raise false
//! alarms; the relation comes from the mechanism.

use anyhow::Context as _;
use dp_core::accounting::event::Neighbours;
use dp_core::features::{Csr, FeatureMatrix};
use dp_data::Dataset;

use crate::experiment::audit_settings::Base;
use crate::experiment::config::DatasetConfig;
use crate::methods::public_core_norm_bound;
use crate::methods::row_clip::RowClip;

/// D, D′ and where the canary points.
pub struct Pair {
    /// The dataset without the canary (add/remove) or with its label −1 (replace-one).
    pub d: Dataset,
    /// The neighbouring dataset.
    pub d_prime: Dataset,
    /// The canary's feature: the statistic is θ at this index.
    pub feature: usize,
    /// The canary's value on that feature.
    pub value: f64,
}

/// The largest value one feature of a row may take under the dataset's public preprocessing
/// and the method's own row clipping (whichever bounds exist; one must).
pub(super) fn public_value_bound(d: &DatasetConfig, clip: Option<RowClip>) -> anyhow::Result<f64> {
    let data = public_core_norm_bound(d);
    let method = clip.map(|c| match c {
        RowClip::L2(l) | RowClip::Linf(l) => l,
    });
    let bound = match (data, method) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => anyhow::bail!(
            "an audit's canary needs a public bound on the row norms: set \
             `dataset.normalize_rows = true` or `dataset.clip_row_norm`"
        ),
    };
    Ok(d.clip_linf.map_or(bound, |l| bound.min(l)))
}

/// The least-used feature of `x` (smallest sum of squares; the first on ties), the bias column
/// (the last, when the preprocessing appends one) excluded.
fn rarest_feature(x: &FeatureMatrix, has_bias: bool) -> anyhow::Result<usize> {
    let d = x.ncols() - usize::from(has_bias);
    anyhow::ensure!(d > 0, "the dataset has no feature besides the bias");
    let mut sq = vec![0.0; x.ncols()];
    for i in 0..x.nrows() {
        match x.row(i) {
            dp_core::features::Row::Dense(v) => {
                sq.iter_mut().zip(v).for_each(|(s, v)| *s += v * v);
            }
            dp_core::features::Row::Sparse(idx, v) => {
                for (&j, v) in idx.iter().zip(v) {
                    sq[j as usize] += v * v;
                }
            }
        }
    }
    Ok((0..d).fold(0, |best, j| if sq[j] < sq[best] { j } else { best }))
}

/// Rows labelled +1, each given by its (column, value) entries, stored like `like` (dense or
/// CSR, with `like`'s column count): the canaries of both audits.
pub(super) fn labelled_rows(like: &FeatureMatrix, rows: &[Vec<(usize, f64)>]) -> Dataset {
    let ncols = like.ncols();
    let x = match like {
        FeatureMatrix::Dense { .. } => {
            let mut data = vec![0.0; rows.len() * ncols];
            for (r, entries) in rows.iter().enumerate() {
                entries.iter().for_each(|&(j, v)| data[r * ncols + j] = v);
            }
            FeatureMatrix::dense(data, rows.len(), ncols)
        }
        FeatureMatrix::Sparse(_) => {
            let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
            for entries in rows {
                let mut sorted = entries.clone();
                sorted.sort_by_key(|&(j, _)| j);
                for (j, v) in sorted {
                    indices.push(j as u32);
                    values.push(v);
                }
                indptr.push(indices.len());
            }
            FeatureMatrix::Sparse(Csr {
                nrows: rows.len(),
                ncols,
                indptr,
                indices,
                values,
            })
        }
    };
    Dataset {
        name: "canaries".into(),
        x,
        y: vec![1.0; rows.len()],
        classes: None,
    }
}

impl Pair {
    /// The pair for `base` (already preprocessed as `cfg` says) under `relation`, for a method
    /// that clips rows as `clip` says.
    pub fn new(
        base: &Dataset,
        cfg: &DatasetConfig,
        relation: Neighbours,
        clip: Option<RowClip>,
    ) -> anyhow::Result<Pair> {
        anyhow::ensure!(base.len() >= 2, "an audit needs at least 2 base rows");
        let value = public_value_bound(cfg, clip)?;
        let feature = rarest_feature(&base.x, cfg.bias.is_some())?;
        let mut entries = vec![(feature, value)];
        if let Some(b) = cfg.bias {
            entries.push((base.x.ncols() - 1, b));
        }
        let plus = labelled_rows(&base.x, &[entries]);
        let mut minus = plus.clone();
        minus.y = vec![-1.0];
        let strip = |d: Dataset| Dataset { classes: None, ..d };
        let (d, d_prime) = match relation {
            Neighbours::AddRemove => {
                let d = strip(base.clone());
                (d.clone(), d.concat(plus, "D'")?)
            }
            Neighbours::ReplaceOne => {
                let rows: Vec<usize> = (0..base.len() - 1).collect();
                let d0 = strip(base.select(&rows));
                (d0.clone().concat(minus, "D")?, d0.concat(plus, "D'")?)
            }
        };
        Ok(Pair {
            d,
            d_prime,
            feature,
            value,
        })
    }
}

/// `x` with every entry 0 but those of the last column when `keep_last` (the bias).
fn zero_features(x: &FeatureMatrix, keep_last: bool) -> FeatureMatrix {
    let (n, d) = (x.nrows(), x.ncols());
    let bias = |i: usize| match x.row(i) {
        dp_core::features::Row::Dense(v) => v[d - 1],
        dp_core::features::Row::Sparse(idx, v) => idx
            .iter()
            .position(|&j| j as usize == d - 1)
            .map_or(0.0, |k| v[k]),
    };
    match x {
        FeatureMatrix::Dense { .. } => {
            let mut data = vec![0.0; n * d];
            if keep_last {
                (0..n).for_each(|i| data[i * d + d - 1] = bias(i));
            }
            FeatureMatrix::dense(data, n, d)
        }
        FeatureMatrix::Sparse(_) => {
            let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
            for i in 0..n {
                if keep_last && bias(i) != 0.0 {
                    indices.push((d - 1) as u32);
                    values.push(bias(i));
                }
                indptr.push(indices.len());
            }
            FeatureMatrix::Sparse(Csr {
                nrows: n,
                ncols: d,
                indptr,
                indices,
                values,
            })
        }
    }
}

/// The base rows of an audit: the config's training split (its `subsample` applied), loaded
/// and preprocessed as a grid would; with [`Base::Zeros`] every feature but the bias is then
/// set to 0 (zero rows stay zero under every preprocessing step, so they are legal rows).
pub fn base_rows(cfg: &DatasetConfig, base: Base) -> anyhow::Result<Dataset> {
    let split = dp_data::load(&cfg.name, &cfg.preprocess())
        .with_context(|| format!("cannot load dataset {:?}", cfg.name))?;
    let mut rows = match cfg.subsample {
        None => split.train,
        Some(n) => {
            let seed =
                u32::try_from(cfg.split_seed).context("dataset.split_seed must fit in 32 bits")?;
            split
                .train
                .stratified_subsample(n, seed)
                .with_context(|| format!("key `dataset.subsample` = {n}"))?
        }
    };
    if base == Base::Zeros {
        rows.x = zero_features(&rows.x, cfg.bias.is_some());
    }
    Ok(rows)
}
