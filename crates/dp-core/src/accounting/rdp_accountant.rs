//! The Rényi-DP accountant: every event becomes an RDP curve on one grid of orders, curves add
//! under composition, and (ε, δ) come from the improved conversion ([`RdpCurve`]).
//!
//! The math lives where it always did (`gaussian`, `subsampled_gaussian`, `objpert`,
//! `private_selection`); this file is only the dispatch from [`Event`] to curves, as
//! dp_accounting's `RdpAccountant._maybe_compose`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::accounting::accountant::Accountant;
use crate::accounting::event::Event;
use crate::accounting::gaussian;
use crate::accounting::rdp_curve::{RdpCurve, default_orders};
use crate::accounting::subsampled_gaussian::SubsampledGaussian;
use crate::error::{DpError, Result, check_delta, check_nonnegative};

/// Per-sampling-rate subsampled-Gaussian tables, shared by the accountants made with
/// [`RdpAccountant::fresh`]: a calibration builds one accountant per probe, and the
/// z-independent work (binomial terms per order) dominates otherwise.
type SgCache = Arc<Mutex<HashMap<u64, SubsampledGaussian>>>;

/// RDP accountant on a fixed grid of orders.
#[derive(Clone)]
pub struct RdpAccountant {
    orders: Arc<[f64]>,
    /// Composed RDP ε(α) per order (0 for a fresh accountant, +∞ after a non-private event).
    eps: Vec<f64>,
    cache: SgCache,
}

impl std::fmt::Debug for RdpAccountant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RdpAccountant")
            .field("orders", &self.orders.len())
            .field("eps", &self.eps)
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
            cache: Arc::default(),
        })
    }

    /// A new accountant with nothing composed, on the same orders and sharing the caches.
    pub fn fresh(&self) -> Self {
        Self {
            orders: self.orders.clone(),
            eps: vec![0.0; self.orders.len()],
            cache: self.cache.clone(),
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
                other if *rate == 1.0 => self.curve_of(other),
                _ => Err(unsupported(
                    event,
                    "RDP amplification by Poisson sampling is implemented for the Gaussian only",
                )),
            },
            Event::SelfComposed { event, count } => Ok(self.curve_of(event)?.scaled(*count)),
            Event::Composed(events) => {
                let mut total = constant(0.0);
                for e in events {
                    total = total.compose(&self.curve_of(e)?)?;
                }
                Ok(total)
            }
            Event::Mixture(events) => {
                if events.is_empty() {
                    return Err(DpError::Invalid("a mixture of no events".into()));
                }
                let mut worst = constant(0.0);
                for e in events {
                    let c = self.curve_of(e)?;
                    for (w, v) in worst.eps.iter_mut().zip(&c.eps) {
                        *w = w.max(*v);
                    }
                }
                Ok(worst)
            }
            Event::RepeatAndSelect { event, selection } => {
                let base = self.curve_of(event)?;
                if base.eps.iter().all(|e| e.is_infinite()) {
                    return Ok(base); // selection cannot make a non-private run private
                }
                selection.apply(&base)
            }
        }
    }
}

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
        match event {
            Event::EpsilonDelta { delta, .. } if *delta != 0.0 => Err(unsupported(
                event,
                "an (ε, δ) guarantee with δ > 0 has no RDP curve",
            )),
            Event::PoissonSampled { rate, event: inner } => match inner.as_ref() {
                Event::Gaussian { .. } => Ok(()),
                other if *rate == 1.0 => self.supports(other),
                _ => Err(unsupported(
                    event,
                    "RDP amplification by Poisson sampling is implemented for the Gaussian only",
                )),
            },
            Event::SelfComposed { event, .. } | Event::RepeatAndSelect { event, .. } => {
                self.supports(event)
            }
            Event::Composed(events) | Event::Mixture(events) => {
                events.iter().try_for_each(|e| self.supports(e))
            }
            _ => Ok(()),
        }
    }

    fn compose(&mut self, event: &Event, count: u64) -> Result<&mut Self> {
        self.supports(event)?;
        let curve = self.curve_of(event)?.scaled(count);
        for (acc, e) in self.eps.iter_mut().zip(&curve.eps) {
            *acc += e;
        }
        Ok(self)
    }

    fn epsilon(&self, delta: f64) -> Result<f64> {
        check_delta(delta)?;
        Ok(self.curve().epsilon(delta)?.0)
    }

    fn delta(&self, epsilon: f64) -> Result<f64> {
        check_nonnegative("epsilon", epsilon)?;
        if self.eps.iter().all(|e| e.is_infinite()) {
            return Ok(1.0);
        }
        self.curve().delta(epsilon)
    }
}
