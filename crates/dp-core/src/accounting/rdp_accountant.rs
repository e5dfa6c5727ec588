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
const MIXED: &str = "it mixes replace-one (sampling without replacement) and add/remove-one \
                     neighbours, and the composition bounds neither; account for them separately";
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

    /// RDP curve of one event on this accountant's orders.
    pub fn curve_of(&self, event: &Event) -> Result<RdpCurve> {
        event.neighbours().map_err(|_| unsupported(event, MIXED))?;
        self.curve_of_parts(event)
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

    /// [`RdpAccountant::curve_of`] once the event's relation is known to be consistent.
    fn curve_of_parts(&self, event: &Event) -> Result<RdpCurve> {
        let orders = &self.orders;
        let constant = |v: f64| RdpCurve {
            orders: orders.to_vec(),
            eps: vec![v; orders.len()],
        };
        match event {
            Event::NoOp => Ok(constant(0.0)),
            Event::NonPrivate => Ok(constant(f64::INFINITY)),
            Event::EpsilonDelta { epsilon, delta } => {
                check_nonnegative("epsilon", *epsilon)?;
                if *delta != 0.0 {
                    return Err(unsupported(
                        event,
                        "an (ε, δ) guarantee with δ > 0 has no RDP curve; compose it with a \
                         basic-composition accountant",
                    ));
                }
                // Pure ε-DP ⇒ (ε²/2)-zCDP (Bun & Steinke 2016, Prop. 3.3) and ε(α) ≤ ε.
                let e = *epsilon;
                RdpCurve::try_from_fn(orders, |a| Ok(e.min(0.5 * a * e * e)))
            }
            Event::Gaussian { noise_multiplier } => {
                gaussian::rdp_curve(*noise_multiplier, 1.0, orders)
            }
            Event::ObjPert(op) => op.rdp_curve(orders),
            Event::PoissonSampled { rate, event: inner } => match inner.as_ref() {
                Event::Gaussian { noise_multiplier } => {
                    let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
                    let sg = match cache.entry(rate.to_bits()) {
                        std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                        std::collections::hash_map::Entry::Vacant(v) => {
                            v.insert(SubsampledGaussian::new(*rate, orders)?)
                        }
                    };
                    sg.curve(*noise_multiplier, 1)
                }
                // Sampling everything is no sampling.
                other if *rate == 1.0 => self.curve_of_parts(other),
                _ => Err(unsupported(
                    event,
                    "RDP amplification by Poisson sampling is implemented for the Gaussian only",
                )),
            },
            Event::SampledWithoutReplacement { rate, event: inner } => match inner.as_ref() {
                Event::Gaussian { noise_multiplier } => {
                    self.wor(*noise_multiplier)?.curve(*rate, orders)
                }
                _ => Err(unsupported(event, WOR_GAUSSIAN_ONLY)),
            },
            Event::SelfComposed { event, count } => Ok(self.curve_of_parts(event)?.scaled(*count)),
            Event::Composed(events) => {
                let mut total = constant(0.0);
                for e in events {
                    total = total.compose(&self.curve_of_parts(e)?)?;
                }
                Ok(total)
            }
            Event::Mixture(events) => {
                if events.is_empty() {
                    return Err(DpError::Invalid("a mixture of no events".into()));
                }
                let mut worst = constant(0.0);
                for e in events {
                    let c = self.curve_of_parts(e)?;
                    for (w, v) in worst.eps.iter_mut().zip(&c.eps) {
                        *w = w.max(*v);
                    }
                }
                Ok(worst)
            }
            Event::RepeatAndSelect { event, selection } => {
                let base = self.curve_of_parts(event)?;
                if base.eps.iter().all(|e| e.is_infinite()) {
                    return Ok(base); // selection cannot make a non-private run private
                }
                selection.apply(&base)
            }
        }
    }
}

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
        self.supports_parts(event)?;
        let own = event.neighbours().map_err(|_| unsupported(event, MIXED))?;
        match (self.neighbours, own) {
            (Some(a), Some(b)) if a != b => Err(unsupported(event, MIXED)),
            _ => Ok(()),
        }
    }

    fn compose(&mut self, event: &Event, count: u64) -> Result<&mut Self> {
        self.supports(event)?;
        let curve = self.curve_of(event)?.scaled(count);
        for (acc, e) in self.eps.iter_mut().zip(&curve.eps) {
            *acc += e;
        }
        if count > 0 {
            self.neighbours = self.neighbours.or(event.neighbours()?);
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

impl RdpAccountant {
    /// Whether every sub-event has an RDP curve here (the relation rule aside).
    fn supports_parts(&self, event: &Event) -> Result<()> {
        match event {
            Event::EpsilonDelta { delta, .. } if *delta != 0.0 => Err(unsupported(
                event,
                "an (ε, δ) guarantee with δ > 0 has no RDP curve",
            )),
            Event::PoissonSampled { rate, event: inner } => match inner.as_ref() {
                Event::Gaussian { .. } => Ok(()),
                other if *rate == 1.0 => self.supports_parts(other),
                _ => Err(unsupported(
                    event,
                    "RDP amplification by Poisson sampling is implemented for the Gaussian only",
                )),
            },
            Event::SampledWithoutReplacement { event: inner, .. } => match inner.as_ref() {
                Event::Gaussian { .. } => Ok(()),
                _ => Err(unsupported(event, WOR_GAUSSIAN_ONLY)),
            },
            Event::SelfComposed { event, .. } | Event::RepeatAndSelect { event, .. } => {
                self.supports_parts(event)
            }
            Event::Composed(events) | Event::Mixture(events) => {
                events.iter().try_for_each(|e| self.supports_parts(e))
            }
            _ => Ok(()),
        }
    }
}
