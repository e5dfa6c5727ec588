//! Dense ReLU networks with a softmax cross-entropy output — DPareto's MNIST MLP1
//! `[784, 1000, 10]` and MLP2 `[784, 128, 64, 10]` — trained by DPareto's DP-SGD / DP-Adam.
//!
//! A lot is processed as whole matrices, and per-example gradients are never formed. For a
//! dense layer with inputs `a_i` and output deltas `δ_i = ∂ℓ_i/∂z_i`, example `i`'s weight
//! gradient is the outer product `δ_i a_iᵀ`, whose squared norm is `‖a_i‖²‖δ_i‖²`, and its bias
//! gradient is `δ_i`. So the squared norm of the whole per-example gradient is
//! `Σ_layers (‖a_i‖² + 1)‖δ_i‖²` (Goodfellow 2015), and the sum of clipped gradients is
//! `Δᵀ diag(c) A` per layer: one matrix product, as in non-private backpropagation.
//!
//! Matrix products run single-threaded ([`Par::Seq`]): callers parallelise across runs.

use std::ops::Range;

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::dense::DenseData;
use super::descent::{clip_factor, descend};
use super::hyper::{Hyper, Init};
use super::noise::xavier_normal;
use crate::error::{Result, ensure};
use crate::learn::optimizer::Optimizer;

/// Rows per forward pass when evaluating, which bounds the activations' memory.
const EVAL_CHUNK: usize = 1024;

/// The shape of a dense ReLU network with a softmax output, and where its parameters sit.
///
/// Parameters live in one flat vector, layer after layer. Layer `l` maps `sizes[l]` inputs to
/// `sizes[l + 1]` outputs and stores its weight matrix `W_l` first, row-major with shape
/// `(out, in)` (MXNet's `FullyConnected` layout: row `j` holds the weights into output `j`),
/// then its bias `b_l` (`out` values). Every layer but the last is followed by a ReLU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mlp {
    sizes: Vec<usize>,
    /// Where each layer's block starts; the last entry is the parameter count.
    offsets: Vec<usize>,
}

impl Mlp {
    /// A network with layer widths `sizes` (inputs first, classes last).
    pub fn new(sizes: &[usize]) -> Result<Self> {
        ensure(
            sizes.len() >= 2,
            "mlp-sizes",
            sizes.len() as f64,
            "must list at least the inputs and the classes",
        )?;
        for &s in sizes {
            ensure(s >= 1, "mlp-width", s as f64, "must be >= 1")?;
        }
        let mut offsets = vec![0];
        for w in sizes.windows(2) {
            offsets.push(offsets[offsets.len() - 1] + (w[0] + 1) * w[1]);
        }
        Ok(Mlp {
            sizes: sizes.to_vec(),
            offsets,
        })
    }

    /// Layer widths, inputs first.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Dense layers (one fewer than the widths).
    pub fn layers(&self) -> usize {
        self.sizes.len() - 1
    }

    /// Input width.
    pub fn inputs(&self) -> usize {
        self.sizes[0]
    }

    /// Output width.
    pub fn classes(&self) -> usize {
        self.sizes[self.layers()]
    }

    /// Parameter count.
    pub fn n_params(&self) -> usize {
        self.offsets[self.layers()]
    }

    /// Where layer `l`'s weights sit in the parameter vector.
    pub fn weights(&self, l: usize) -> Range<usize> {
        let start = self.offsets[l];
        start..start + self.sizes[l] * self.sizes[l + 1]
    }

    /// Where layer `l`'s bias sits in the parameter vector.
    pub fn bias(&self, l: usize) -> Range<usize> {
        self.weights(l).end..self.offsets[l + 1]
    }

    /// Initial parameters, layer by layer, weights before bias.
    pub fn init<R: Rng>(&self, init: Init, rng: &mut R) -> Vec<f64> {
        let mut p = vec![0.0; self.n_params()];
        if init == Init::Code {
            for l in 0..self.layers() {
                let (fan_in, fan_out) = (self.sizes[l], self.sizes[l + 1]);
                xavier_normal(&mut p[self.weights(l)], fan_in, fan_out, rng);
                // The authors' bias has shape (1, out), so MXNet's Xavier sees fans (out, 1).
                xavier_normal(&mut p[self.bias(l)], fan_out, 1, rng);
            }
        }
        p
    }

    /// Logits (`rows × classes`, row-major) of the row-major inputs `x`.
    ///
    /// # Panics
    /// If `params` or `x` do not fit the shape.
    pub fn logits(&self, params: &[f64], x: &[f64]) -> Vec<f64> {
        let d = self.inputs();
        assert_eq!(params.len(), self.n_params(), "parameter count");
        assert_eq!(x.len() % d, 0, "rows of {d} inputs");
        let rows = x.len() / d;
        let mut out = Vec::with_capacity(rows * self.classes());
        let mut batch = Batch::new(self, rows.min(EVAL_CHUNK));
        for chunk in x.chunks(EVAL_CHUNK * d) {
            batch.inputs_mut(chunk.len() / d).copy_from_slice(chunk);
            self.forward(params, &mut batch);
            out.extend_from_slice(batch.logits());
        }
        out
    }

    /// Every layer's activations for the inputs already in `batch`.
    fn forward(&self, params: &[f64], batch: &mut Batch) {
        let m = batch.rows;
        for l in 0..self.layers() {
            let (i, o) = (self.sizes[l], self.sizes[l + 1]);
            let (done, rest) = batch.acts.split_at_mut(l + 1);
            let (a, z) = (&done[l][..m * i], &mut rest[0][..m * o]);
            matmul(
                MatMut::from_row_major_slice_mut(z, m, o),
                Accum::Replace,
                rows(a, i),
                rows(&params[self.weights(l)], i).transpose(),
                1.0,
                Par::Seq,
            );
            let b = &params[self.bias(l)];
            for row in z.chunks_exact_mut(o) {
                row.iter_mut().zip(b).for_each(|(v, bj)| *v += bj);
            }
            if l + 1 < self.layers() {
                // `max` returns 0 for NaN, as mshadow's `a > 0 ? a : 0` does.
                z.iter_mut().for_each(|v| *v = v.max(0.0));
            }
        }
    }

    /// Every layer's deltas after [`Mlp::forward`]; returns whether every example's loss is
    /// finite.
    fn backward(&self, params: &[f64], batch: &mut Batch, labels: &[u8]) -> bool {
        let (m, k, top) = (batch.rows, self.classes(), self.layers() - 1);
        let mut finite = true;
        let logits = &batch.acts[top + 1][..m * k];
        let deltas = &mut batch.deltas[top][..m * k];
        for ((z, d), &y) in logits
            .chunks_exact(k)
            .zip(deltas.chunks_exact_mut(k))
            .zip(labels)
        {
            let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lse = max + z.iter().map(|v| (v - max).exp()).sum::<f64>().ln();
            finite &= (lse - z[y as usize]).is_finite();
            d.iter_mut()
                .zip(z)
                .for_each(|(dj, zj)| *dj = (zj - lse).exp());
            d[y as usize] -= 1.0;
        }
        // Layer 0's delta is the one gradient never needed: only its product with the inputs is.
        for l in (1..=top).rev() {
            let (i, o) = (self.sizes[l], self.sizes[l + 1]);
            let (below, above) = batch.deltas.split_at_mut(l);
            let d_in = &mut below[l - 1][..m * i];
            matmul(
                MatMut::from_row_major_slice_mut(d_in, m, i),
                Accum::Replace,
                rows(&above[0][..m * o], o),
                rows(&params[self.weights(l)], i),
                1.0,
                Par::Seq,
            );
            // ReLU's derivative is 1[z > 0], and a = relu(z) > 0 exactly when z > 0.
            for (d, a) in d_in.iter_mut().zip(&batch.acts[l][..m * i]) {
                if *a <= 0.0 {
                    *d = 0.0;
                }
            }
        }
        finite
    }

    /// Each example's squared gradient norm `Σ_l (‖a_l‖² + 1)‖δ_l‖²`, into `batch.scale`.
    fn sq_norms(&self, batch: &mut Batch) {
        let m = batch.rows;
        batch.scale[..m].fill(0.0);
        for l in 0..self.layers() {
            let (i, o) = (self.sizes[l], self.sizes[l + 1]);
            let acts = batch.acts[l][..m * i].chunks_exact(i);
            let deltas = batch.deltas[l][..m * o].chunks_exact(o);
            for ((s, a), d) in batch.scale.iter_mut().zip(acts).zip(deltas) {
                *s += (sum_sq(a) + 1.0) * sum_sq(d);
            }
        }
    }

    /// `grad = Σ_i c_i g_i` for the factors `c_i` in `batch.scale`: per layer `Δᵀ diag(c) A` and
    /// `Σ_i c_i δ_i`. Scales the deltas in place.
    fn clipped_sum(&self, batch: &mut Batch, grad: &mut [f64]) {
        let m = batch.rows;
        for l in 0..self.layers() {
            let (i, o) = (self.sizes[l], self.sizes[l + 1]);
            let d = &mut batch.deltas[l][..m * o];
            for (row, &c) in d.chunks_exact_mut(o).zip(&batch.scale[..m]) {
                row.iter_mut().for_each(|v| *v *= c);
            }
            let (gw, gb) = grad[self.offsets[l]..self.offsets[l + 1]].split_at_mut(i * o);
            matmul(
                MatMut::from_row_major_slice_mut(gw, o, i),
                Accum::Replace,
                rows(d, o).transpose(),
                rows(&batch.acts[l][..m * i], i),
                1.0,
                Par::Seq,
            );
            gb.fill(0.0);
            for row in d.chunks_exact(o) {
                gb.iter_mut().zip(row).for_each(|(g, v)| *g += v);
            }
        }
    }

    /// Overwrites `grad` with the sum of the lot's per-example gradients, each clipped to norm
    /// `clip`, for the inputs in `batch`; returns whether every loss was finite (and leaves
    /// `grad` unspecified when not).
    fn clipped_grad_sum(
        &self,
        params: &[f64],
        batch: &mut Batch,
        labels: &[u8],
        clip: f64,
        grad: &mut [f64],
    ) -> bool {
        self.forward(params, batch);
        if !self.backward(params, batch, labels) {
            return false;
        }
        self.sq_norms(batch);
        for s in &mut batch.scale[..batch.rows] {
            *s = clip_factor(s.sqrt(), clip);
        }
        self.clipped_sum(batch, grad);
        true
    }
}

/// A row-major view of `data` with `cols` columns.
fn rows(data: &[f64], cols: usize) -> MatRef<'_, f64> {
    MatRef::from_row_major_slice(data, data.len() / cols, cols)
}

fn sum_sq(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum()
}

/// One lot's activations and deltas, allocated once for up to `capacity` rows.
#[derive(Clone, Debug)]
struct Batch {
    rows: usize,
    sizes: Vec<usize>,
    /// `acts[l]`: `rows × sizes[l]`; the inputs first, the logits last.
    acts: Vec<Vec<f64>>,
    /// `deltas[l]`: `rows × sizes[l + 1]`, the losses' gradients at layer `l`'s outputs.
    deltas: Vec<Vec<f64>>,
    /// Per-example squared gradient norms, then clipping factors.
    scale: Vec<f64>,
}

impl Batch {
    fn new(mlp: &Mlp, capacity: usize) -> Self {
        let buffers = |sizes: &[usize]| sizes.iter().map(|s| vec![0.0; capacity * s]).collect();
        Batch {
            rows: 0,
            sizes: mlp.sizes.clone(),
            acts: buffers(&mlp.sizes),
            deltas: buffers(&mlp.sizes[1..]),
            scale: vec![0.0; capacity],
        }
    }

    /// Starts a batch of `rows` rows; returns their input buffer.
    fn inputs_mut(&mut self, rows: usize) -> &mut [f64] {
        self.rows = rows;
        &mut self.acts[0][..rows * self.sizes[0]]
    }

    fn logits(&self) -> &[f64] {
        let k = self.sizes[self.sizes.len() - 1];
        &self.acts[self.sizes.len() - 1][..self.rows * k]
    }
}

/// One training run: the last iterate and how the run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct MlpRun {
    /// The network's shape and parameter layout.
    pub mlp: Mlp,
    /// Parameters in [`Mlp`]'s layout.
    pub params: Vec<f64>,
    /// Steps the mechanism is charged for.
    pub steps: u64,
    /// Steps actually taken (fewer when a loss or parameter became non-finite).
    pub steps_run: u64,
}

impl MlpRun {
    /// Whether training stopped early on a non-finite value.
    pub fn diverged(&self) -> bool {
        self.steps_run < self.steps
    }

    /// Test accuracy of the argmax prediction (the first of tied maxima, as NumPy's and MXNet's
    /// `argmax`). A row with a non-finite logit counts as wrong: NaN has no defined argmax, and
    /// counting it wrong never credits a diverged model with accuracy it did not earn.
    ///
    /// # Panics
    /// If `test` rows are not `mlp.inputs()` wide.
    pub fn accuracy(&self, test: &DenseData<'_>) -> f64 {
        assert_eq!(test.d(), self.mlp.inputs(), "test width");
        let k = self.mlp.classes();
        let logits = self.mlp.logits(&self.params, test.x());
        let correct = logits
            .chunks_exact(k)
            .zip(test.y())
            .filter(|(z, y)| argmax(z) == Some(**y as usize))
            .count();
        correct as f64 / test.n() as f64
    }
}

/// The first index of the largest value, or `None` when a value is not finite.
fn argmax(z: &[f64]) -> Option<usize> {
    if !z.iter().all(|v| v.is_finite()) {
        return None;
    }
    let mut best = 0;
    for (j, v) in z.iter().enumerate() {
        if *v > z[best] {
            best = j;
        }
    }
    Some(best)
}

/// Trains the network `sizes` (inputs first, classes last) with `opt` at hyperparameters
/// `hyper`, every random draw from `seed`: the initialisation first, then each step's lot and
/// then its noise (one normal draw per parameter).
pub fn train_mlp(
    train: &DenseData<'_>,
    sizes: &[usize],
    opt: Optimizer,
    hyper: &Hyper,
    init: Init,
    seed: u64,
) -> Result<MlpRun> {
    let mlp = Mlp::new(sizes)?;
    let (n, d) = (train.n(), train.d());
    ensure(
        d == mlp.inputs(),
        "features",
        d as f64,
        "must equal the network's input width",
    )?;
    ensure(
        (train.max_label() as usize) < mlp.classes(),
        "label",
        train.max_label() as f64,
        "must be below the network's output width",
    )?;
    hyper.validate(n)?;
    opt.validate()?;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut params = mlp.init(init, &mut rng);
    let mut batch = Batch::new(&mlp, hyper.lot);
    let mut labels = vec![0; hyper.lot];
    let steps_run = descend(n, opt, hyper, &mut params, &mut rng, |theta, lot, grad| {
        let x = batch.inputs_mut(lot.len());
        for ((row, y), &i) in x.chunks_exact_mut(d).zip(&mut labels).zip(lot) {
            let i = i as usize;
            row.copy_from_slice(train.row(i));
            *y = train.y()[i];
        }
        mlp.clipped_grad_sum(theta, &mut batch, &labels, hyper.clip, grad)
    });
    Ok(MlpRun {
        mlp,
        params,
        steps: hyper.steps(n),
        steps_run,
    })
}

#[cfg(test)]
#[path = "mlp_tests.rs"]
mod tests;
