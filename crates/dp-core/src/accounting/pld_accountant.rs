//! The privacy-loss-distribution accountant: events become discretised PLDs ([`Pld`]) composed
//! by FFT.
//!
//! It also composes the same events in an [`RdpAccountant`] beside it and reports the smaller
//! of the two answers: both are valid upper bounds, so the minimum is one too, and the PLD
//! answer can never be worse than the RDP answer for the same event (its discretisation and
//! truncation budget can cost more than RDP's slack when δ is tiny).

use crate::accounting::accountant::Accountant;
use crate::accounting::event::Event;
use crate::accounting::pld::{Pld, PldConfig};
use crate::accounting::rdp_accountant::RdpAccountant;
use crate::accounting::with_replacement;
use crate::error::{DpError, Result, check_delta, check_nonnegative};

/// PLD accountant (pessimistic connect-the-dots discretisation, [`PldConfig`]).
#[derive(Clone, Debug)]
pub struct PldAccountant {
    config: PldConfig,
    /// The composition so far; `None` until something private is composed.
    pld: Option<Pld>,
    non_private: bool,
    /// The same composition by RDP (which supports every event PLD supports).
    rdp: RdpAccountant,
    /// Whether pure ε-DP releases are taken, through randomised response
    /// ([`PldAccountant::with_pure_dp`]).
    pure_dp: bool,
}

impl Default for PldAccountant {
    fn default() -> Self {
        Self::new()
    }
}

impl PldAccountant {
    /// Accountant with the default [`PldConfig`] (h = 1e-4, τ = 1e-15).
    pub fn new() -> Self {
        Self::with_config(PldConfig::default()).expect("the default PLD config is valid")
    }

    /// Accountant with the given grid and truncation budget.
    pub fn with_config(config: PldConfig) -> Result<Self> {
        config.validate()?;
        Ok(Self {
            config,
            pld: None,
            non_private: false,
            rdp: RdpAccountant::new(),
            pure_dp: false,
        })
    }

    /// This accountant, also taking pure ε-DP releases (`EpsilonDelta { ε, δ: 0 }`) through
    /// their dominating pair, randomised response ([`Pld::randomized_response`]): the optimal
    /// composition of pure steps. The audit's ceilings read curves through it. The certifier
    /// leaves pure steps to RDP, the bound every calibration aims at, so that a cell's
    /// certified ε is the one its noise was set for.
    pub fn with_pure_dp(mut self) -> Self {
        self.pure_dp = true;
        self
    }

    /// A new accountant with nothing composed and the same configuration (RDP caches shared).
    pub fn fresh(&self) -> Self {
        Self {
            config: self.config,
            pld: None,
            non_private: false,
            rdp: self.rdp.fresh(),
            pure_dp: self.pure_dp,
        }
    }

    /// ε of the PLD alone, without the RDP cap (for tests and figures comparing the two).
    pub fn pld_epsilon(&self, delta: f64) -> Result<f64> {
        check_delta(delta)?;
        if self.non_private {
            return Ok(f64::INFINITY);
        }
        self.pld.as_ref().map_or(Ok(0.0), |p| p.epsilon(delta))
    }

    /// The discretised PLD of `event` alone (`None` for an event that releases nothing), for
    /// reading its trade-off curve ([`crate::audit::ceiling`]); an error for an event this
    /// accountant does not support or one containing a non-private release.
    pub fn pld(&self, event: &Event) -> Result<Option<Pld>> {
        self.supports(event)?;
        if event.contains_non_private() {
            return Err(DpError::Invalid(
                "a non-private release has no privacy-loss distribution".into(),
            ));
        }
        self.pld_of(event)
    }

    /// Whether `event` has a privacy-loss distribution here (the dispatch of `pld_of`).
    fn discretisable(&self, event: &Event) -> Result<()> {
        match event {
            Event::RepeatAndSelect { .. } => Err(unsupported(
                event,
                "private-selection bounds (Papernot & Steinke) are RDP bounds; use the RDP accountant",
            )),
            Event::Mixture(_) => Err(unsupported(
                event,
                "a mixture is bounded by its worst component's RDP curve; use the RDP accountant",
            )),
            Event::EpsilonDelta { delta, .. } if *delta == 0.0 && self.pure_dp => Ok(()),
            Event::EpsilonDelta { .. } => Err(unsupported(
                event,
                "(ε, δ) events are not discretised; use the RDP accountant (δ = 0) instead",
            )),
            // Taken with or without pure releases: its step is (ε′, δ)-DP, not a pure release,
            // and no calibration aims at it.
            Event::SampledWithReplacement { event: inner, .. } => match inner.as_ref() {
                Event::EpsilonDelta { delta, .. } if *delta == 0.0 => Ok(()),
                _ => Err(unsupported(event, WITH_REPLACEMENT)),
            },
            Event::SampledWithoutReplacement { .. } => Err(unsupported(
                event,
                "sampling without replacement (replace-one neighbours) has no PLD here; use the \
                 RDP accountant",
            )),
            Event::PoissonSampled { rate, event: inner } => match inner.as_ref() {
                Event::Gaussian { .. } => Ok(()),
                other if *rate == 1.0 => self.discretisable(other),
                _ => Err(unsupported(event, SAMPLED)),
            },
            Event::SelfComposed { event, .. } => self.discretisable(event),
            Event::Composed(events) => events.iter().try_for_each(|e| self.discretisable(e)),
            _ => Ok(()),
        }
    }

    /// PLD of one event; `None` for an event that releases nothing.
    fn pld_of(&self, event: &Event) -> Result<Option<Pld>> {
        let cfg = &self.config;
        Ok(match event {
            Event::NoOp => None,
            Event::Gaussian { noise_multiplier } => {
                Some(Pld::gaussian(*noise_multiplier, 1.0, cfg)?)
            }
            Event::EpsilonDelta { epsilon, delta } if *delta == 0.0 && self.pure_dp => {
                Pld::randomized_response(*epsilon, cfg)?
            }
            Event::ObjPert(op) => Some(Pld::objpert(
                op.sigma,
                op.lambda,
                op.beta,
                op.lipschitz,
                cfg,
            )?),
            Event::SampledWithReplacement {
                population,
                draws,
                event: inner,
            } => match inner.as_ref() {
                Event::EpsilonDelta { epsilon, delta } if *delta == 0.0 => {
                    let (e, d) = with_replacement::truncated(*epsilon, *draws, *population)?;
                    Pld::epsilon_delta(e, d, cfg)?
                }
                _ => return Err(unsupported(event, WITH_REPLACEMENT)),
            },
            Event::PoissonSampled { rate, event: inner } => match inner.as_ref() {
                Event::Gaussian { noise_multiplier } => {
                    Some(Pld::subsampled_gaussian(*rate, *noise_multiplier, cfg)?)
                }
                other if *rate == 1.0 => self.pld_of(other)?,
                _ => return Err(unsupported(event, SAMPLED)),
            },
            Event::SelfComposed { event, count } => match (self.pld_of(event)?, count) {
                (None, _) | (_, 0) => None,
                (Some(p), &k) => Some(p.self_compose(k)?),
            },
            Event::Composed(events) => {
                let mut total: Option<Pld> = None;
                for e in events {
                    total = compose_opt(total, self.pld_of(e)?)?;
                }
                total
            }
            Event::NonPrivate => return Err(DpError::Invalid("non-private event".into())),
            _ => return Err(unsupported(event, "checked by supports() before composing")),
        })
    }
}

const SAMPLED: &str = "Poisson sampling is implemented for the Gaussian only";

const WITH_REPLACEMENT: &str = "sampling with replacement is taken around a pure ε-DP event \
     only (around a Gaussian, the certifier's closed form revealing the multiplicity bounds it)";

fn unsupported(event: &Event, reason: &'static str) -> DpError {
    DpError::Unsupported {
        accountant: "PLD",
        event: event.kind(),
        reason,
    }
}

fn compose_opt(a: Option<Pld>, b: Option<Pld>) -> Result<Option<Pld>> {
    Ok(match (a, b) {
        (Some(a), Some(b)) => Some(a.compose(&b)?),
        (a, None) => a,
        (None, b) => b,
    })
}

impl Accountant for PldAccountant {
    fn name(&self) -> &'static str {
        "PLD"
    }

    /// Whether the event has a PLD here, and the RDP half (which compose also feeds, and
    /// which refuses an event whose relation differs from what it composed) takes it too.
    fn supports(&self, event: &Event) -> Result<()> {
        self.discretisable(event)?;
        self.rdp.supports(event)
    }

    fn compose(&mut self, event: &Event, count: u64) -> Result<&mut Self> {
        self.supports(event)?;
        if count == 0 {
            return Ok(self);
        }
        if event.contains_non_private() {
            self.rdp.compose(event, count)?;
            self.non_private = true;
            return Ok(self);
        }
        // Everything that can fail runs before anything is stored: an event the PLD cannot
        // discretise leaves both halves as they were.
        let pld = if self.non_private {
            None
        } else {
            let one = self.pld_of(event)?;
            let all = match (one, count) {
                (Some(p), k) if k > 1 => Some(p.self_compose(k)?),
                (p, _) => p,
            };
            Some(compose_opt(self.pld.clone(), all)?)
        };
        self.rdp.compose(event, count)?;
        if let Some(pld) = pld {
            self.pld = pld;
        }
        Ok(self)
    }

    fn epsilon(&self, delta: f64) -> Result<f64> {
        Ok(self.pld_epsilon(delta)?.min(self.rdp.epsilon(delta)?))
    }

    fn delta(&self, epsilon: f64) -> Result<f64> {
        check_nonnegative("epsilon", epsilon)?;
        if self.non_private {
            return Ok(1.0);
        }
        let pld = self.pld.as_ref().map_or(Ok(0.0), |p| p.delta(epsilon))?;
        Ok(pld.min(self.rdp.delta(epsilon)?))
    }
}
