//! The Rényi-DP accountant: every event becomes an RDP curve on one grid of orders, curves add
//! under composition, and (ε, δ) come from the improved conversion ([`RdpCurve`]; the classic
//! one on request, [`RdpAccountant::with_conversion`]).
//!
//! The math lives where it always did (`gaussian`, `subsampled_gaussian`,
//! `subsampled_gaussian_wor`, `objpert`, `private_selection`); this file is only the dispatch
//! from [`Event`] to curves, as dp_accounting's `RdpAccountant._maybe_compose`, plus the rule
//! that add/remove and replace-one events never share a composition ([`Event::neighbours`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::accounting::accountant::Accountant;
use crate::accounting::event::{Event, Neighbours};
use crate::accounting::gaussian;
use crate::accounting::rdp_curve::{Conversion, RdpCurve, default_orders};
use crate::accounting::subsampled_gaussian::SubsampledGaussian;
use crate::accounting::subsampled_gaussian_wor::WorGaussian;
use crate::accounting::{with_replacement, with_replacement_gaussian};
use crate::error::{DpError, Result, check_delta, check_nonnegative};

/// Per-sampling-rate subsampled-Gaussian tables, shared by the accountants made with
/// [`RdpAccountant::fresh`]: a calibration builds one accountant per probe, and the
/// z-independent work (binomial terms per order) dominates otherwise.
type SgCache = Arc<Mutex<HashMap<u64, SubsampledGaussian>>>;

/// Per-noise-multiplier without-replacement tables (their forward differences depend on z
/// only), shared like [`SgCache`]. A calibration probes a new z each time, so the map is
/// cleared when it reaches [`WOR_CACHE_LIMIT`] entries instead of growing without bound.
type WorCache = Arc<Mutex<HashMap<u64, Arc<WorGaussian>>>>;

/// Entries kept in a [`WorCache`] (about 8 kB each).
const WOR_CACHE_LIMIT: usize = 256;

/// Why replace-one and add/remove events cannot be composed.
const MIXED: &str = "it mixes replace-one (sampling with or without replacement) and \
                     add/remove-one neighbours, and the composition bounds neither; account for \
                     them separately";
/// RDP accountant on a fixed grid of orders.
#[derive(Clone)]
pub struct RdpAccountant {
    orders: Arc<[f64]>,
    /// Composed RDP ε(α) per order (0 for a fresh accountant, +∞ after a non-private event).
    eps: Vec<f64>,
    /// The relation of everything composed so far (`None` while it holds for any).
    neighbours: Option<Neighbours>,
    conversion: Conversion,
    cache: SgCache,
    wor_cache: WorCache,
}

impl std::fmt::Debug for RdpAccountant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RdpAccountant")
            .field("orders", &self.orders.len())
            .field("eps", &self.eps)
            .field("neighbours", &self.neighbours)
            .field("conversion", &self.conversion)
            .finish()
    }
}

impl Default for RdpAccountant {
    fn default() -> Self {
        Self::new()
    }
}

impl RdpAccountant {
    /// Accountant on the default order grid ([`default_orders`]).
    pub fn new() -> Self {
        Self::with_orders(&default_orders()).expect("the default orders are valid")
    }

    /// Accountant on the given orders (each > 1, finite).
    pub fn with_orders(orders: &[f64]) -> Result<Self> {
        // Validates the orders (and rejects an empty grid).
        RdpCurve::new(orders.to_vec(), vec![0.0; orders.len()])?;
        Ok(Self {
            orders: orders.into(),
            eps: vec![0.0; orders.len()],
            neighbours: None,
            conversion: Conversion::Improved,
            cache: Arc::default(),
            wor_cache: Arc::default(),
        })
    }

    /// The same accountant answering ε and δ by `conversion` (default
    /// [`Conversion::Improved`]).
    pub fn with_conversion(mut self, conversion: Conversion) -> Self {
        self.conversion = conversion;
        self
    }

    /// The RDP → (ε, δ) conversion in use.
    pub fn conversion(&self) -> Conversion {
        self.conversion
    }

    /// A new accountant with nothing composed, on the same orders and conversion, sharing the
    /// caches.
    pub fn fresh(&self) -> Self {
        Self {
            orders: self.orders.clone(),
            eps: vec![0.0; self.orders.len()],
            neighbours: None,
            conversion: self.conversion,
            cache: self.cache.clone(),
            wor_cache: self.wor_cache.clone(),
        }
    }

    /// Orders of the grid.
    pub fn orders(&self) -> &[f64] {
        &self.orders
    }

    /// The composed RDP curve.
    pub fn curve(&self) -> RdpCurve {
        RdpCurve {
            orders: self.orders.to_vec(),
            eps: self.eps.clone(),
        }
    }

    /// RDP curve of one event on this accountant's orders: `Ok` exactly when a fresh accountant
    /// would compose it, with the same error otherwise.
    pub fn curve_of(&self, event: &Event) -> Result<RdpCurve> {
        Ok(self.checked_curve(event, None)?.0)
    }

    /// The without-replacement table for noise multiplier `z`, from the shared cache.
    fn wor(&self, z: f64) -> Result<Arc<WorGaussian>> {
        let mut cache = self.wor_cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(w) = cache.get(&z.to_bits()) {
            return Ok(w.clone());
        }
        if cache.len() >= WOR_CACHE_LIMIT {
            cache.clear();
        }
        let w = Arc::new(WorGaussian::new(z)?);
        cache.insert(z.to_bits(), w.clone());
        Ok(w)
    }

    /// Poisson-subsampled Gaussian curve, its rate's table from the shared cache.
    fn sg_curve(&self, rate: f64, z: f64) -> Result<RdpCurve> {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let sg = match cache.entry(rate.to_bits()) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(SubsampledGaussian::new(rate, &self.orders)?)
            }
        };
        sg.curve(z, 1)
    }

    /// The curve [`Accountant::compose`] adds for `event` after events of relation `composed`,
    /// and the event's own relation. `supports` is this with the curve dropped and `curve_of`
    /// with nothing composed before, so none of the three can accept what another refuses.
    ///
    /// A dry walk runs first so that an unsupported sub-event is reported wherever it sits,
    /// ahead of the relation rule and of a failing computation elsewhere in the tree. The
    /// numbers themselves can still fail (fields out of range when the event was built without
    /// the checked constructors, an empty mixture, a series that does not converge), and only
    /// computing them tells; hence `supports` builds the curve too.
    fn checked_curve(
        &self,
        event: &Event,
        composed: Option<Neighbours>,
    ) -> Result<(RdpCurve, Option<Neighbours>)> {
        self.walk(event, false)?;
        let own = event.neighbours().map_err(|_| unsupported(event, MIXED))?;
        if matches!((composed, own), (Some(a), Some(b)) if a != b) {
            return Err(unsupported(event, MIXED));
        }
        let curve = self
            .walk(event, true)?
            .expect("a building walk returns a curve");
        Ok((curve, own))
    }

    /// The dispatch from events to curves, as dp_accounting's `_maybe_compose`, and the only
    /// place that decides which events the RDP accountant can bound. The dry walk (`build`
    /// false, `Ok(None)`) takes the same branches as the building one, so checking an event
    /// cannot drift from computing it as two separate walks did.
    fn walk(&self, event: &Event, build: bool) -> Result<Option<RdpCurve>> {
        let orders = &self.orders;
        let constant = |v: f64| RdpCurve {
            orders: orders.to_vec(),
            eps: vec![v; orders.len()],
        };
        let leaf = |curve: &dyn Fn() -> Result<RdpCurve>| build.then(curve).transpose();
        // Pure ε-DP ⇒ (ε²/2)-zCDP (Bun & Steinke 2016, Prop. 3.3) and ε(α) ≤ ε.
        let pure = |e: f64| RdpCurve::try_from_fn(orders, |a| Ok(e.min(0.5 * a * e * e)));

        match event {
            Event::NoOp => leaf(&|| Ok(constant(0.0))),
            Event::NonPrivate => leaf(&|| Ok(constant(f64::INFINITY))),
            Event::EpsilonDelta { epsilon, delta } => {
                if *delta != 0.0 {
                    return Err(unsupported(event, APPROXIMATE_DP));
                }
                leaf(&|| {
                    check_nonnegative("epsilon", *epsilon)?;
                    pure(*epsilon)
                })
            }
            Event::Gaussian { noise_multiplier } => {
                leaf(&|| gaussian::rdp_curve(*noise_multiplier, 1.0, orders))
            }
            Event::ObjPert(op) => leaf(&|| op.rdp_curve(orders)),
            Event::PoissonSampled { rate, event: inner } => match inner.as_ref() {
                Event::Gaussian { noise_multiplier } => {
                    leaf(&|| self.sg_curve(*rate, *noise_multiplier))
                }
                // Sampling everything is no sampling.
                other if *rate == 1.0 => self.walk(other, build),
                _ => Err(unsupported(event, POISSON_GAUSSIAN_ONLY)),
            },
            Event::SampledWithoutReplacement { rate, event: inner } => match inner.as_ref() {
                Event::Gaussian { noise_multiplier } => {
                    leaf(&|| self.wor(*noise_multiplier)?.curve(*rate, orders))
                }
                _ => Err(unsupported(event, WOR_GAUSSIAN_ONLY)),
            },
            Event::SampledWithReplacement {
                population,
                draws,
                event: inner,
            } => match inner.as_ref() {
                Event::EpsilonDelta { epsilon, delta } if *delta == 0.0 => leaf(&|| {
                    pure(with_replacement::pure_epsilon(
                        *epsilon,
                        *draws,
                        *population,
                    )?)
                }),
                // Per-copy z; the replaced row's multiplicity revealed (valid, loose).
                Event::Gaussian { noise_multiplier } => leaf(&|| {
                    RdpCurve::try_from_fn(orders, |a| {
                        with_replacement_gaussian::revealed_rdp(
                            *noise_multiplier,
                            *draws,
                            *population,
                            a,
                        )
                    })
                }),
                _ => Err(unsupported(event, WR_PURE_ONLY)),
            },
            Event::SelfComposed { event, count } => {
                Ok(self.walk(event, build)?.map(|c| c.scaled(*count)))
            }
            Event::Composed(events) => {
                let mut total = build.then(|| constant(0.0));
                for e in events {
                    let curve = self.walk(e, build)?;
                    if let (Some(t), Some(c)) = (&mut total, curve) {
                        *t = t.compose(&c)?;
                    }
                }
                Ok(total)
            }
            Event::Mixture(events) => {
                // Malformed rather than unsupported: left to the building walk, so that the dry
                // one still finds an unsupported sub-event elsewhere first.
                if build && events.is_empty() {
                    return Err(DpError::Invalid("a mixture of no events".into()));
                }
                let mut worst = build.then(|| constant(0.0));
                for e in events {
                    let curve = self.walk(e, build)?;
                    if let (Some(w), Some(c)) = (&mut worst, curve) {
                        for (w, v) in w.eps.iter_mut().zip(&c.eps) {
                            *w = w.max(*v);
                        }
                    }
                }
                Ok(worst)
            }
            Event::RepeatAndSelect { event, selection } => match self.walk(event, build)? {
                Some(base) if !base.eps.iter().all(|e| e.is_infinite()) => {
                    selection.apply(&base).map(Some)
                }
                // Dry walk, or selection cannot make a non-private run private.
                base => Ok(base),
            },
        }
    }
}

const APPROXIMATE_DP: &str = "an (ε, δ) guarantee with δ > 0 has no RDP curve";

const POISSON_GAUSSIAN_ONLY: &str =
    "RDP amplification by Poisson sampling is implemented for the Gaussian only";

const WR_PURE_ONLY: &str = "sampling with replacement is implemented around a pure ε-DP \
     event or a Gaussian (whose replaced row's multiplicity the bound reveals) only";

const WOR_GAUSSIAN_ONLY: &str =
    "RDP amplification by sampling without replacement is implemented for the Gaussian only";

fn unsupported(event: &Event, reason: &'static str) -> DpError {
    DpError::Unsupported {
        accountant: "RDP",
        event: event.kind(),
        reason,
    }
}

impl Accountant for RdpAccountant {
    fn name(&self) -> &'static str {
        "RDP"
    }

    fn supports(&self, event: &Event) -> Result<()> {
        self.checked_curve(event, self.neighbours).map(|_| ())
    }

    fn compose(&mut self, event: &Event, count: u64) -> Result<&mut Self> {
        let (curve, own) = self.checked_curve(event, self.neighbours)?;
        let curve = curve.scaled(count);
        for (acc, e) in self.eps.iter_mut().zip(&curve.eps) {
            *acc += e;
        }
        if count > 0 {
            self.neighbours = self.neighbours.or(own);
        }
        Ok(self)
    }

    fn epsilon(&self, delta: f64) -> Result<f64> {
        check_delta(delta)?;
        Ok(self.curve().epsilon_with(delta, self.conversion)?.0)
    }

    fn delta(&self, epsilon: f64) -> Result<f64> {
        check_nonnegative("epsilon", epsilon)?;
        if self.eps.iter().all(|e| e.is_infinite()) {
            return Ok(1.0);
        }
        self.curve().delta_with(epsilon, self.conversion)
    }
}
