//! Iyengar et al.'s kinds as one mechanism for `dp-bench audit`: the config's grid must hold
//! exactly one live point, which is built and calibrated as a cell builds it.

use dp_core::accounting::event::{Event, Neighbours};
use dp_core::learn::{GlmData, Mechanism};

use super::common::{Grid, GridMethod};
use crate::methods::Context;
use crate::methods::audited::{Audited, Release};

/// A grid point's mechanism, reporting the event of what each run did ([`Grid::ran`]).
struct PointRelease<G: Grid> {
    mech: G::Mech,
}

impl<G: Grid> Release for PointRelease<G> {
    fn release(&self, data: &GlmData<'_>, seed: u64) -> dp_core::Result<(Vec<f64>, Event)> {
        let (theta, report) = self.mech.fit(data, seed)?;
        Ok((theta, G::ran(&self.mech, &report)))
    }
}

/// The mechanism of `m`'s only live point at `epsilon`, audited with replace-one pairs: the
/// mechanisms are built for a public n and refuse data of another size. Their certificates
/// are for the relation [`Grid::certificate`] names.
pub fn mechanism<'c, G: Grid>(
    m: &'c GridMethod<G>,
    ctx: &Context<'c>,
    epsilon: f64,
) -> anyhow::Result<Audited<'c>> {
    anyhow::ensure!(
        ctx.classes.is_empty(),
        "an audit runs one binary problem: remove `dataset.one_vs_all`"
    );
    let n = ctx.train.n();
    let live: Vec<G::Point> = m
        .grid
        .points(n, epsilon)
        .into_iter()
        .filter(|p| m.grid.live(p))
        .collect();
    let [p] = live.as_slice() else {
        anyhow::bail!(
            "an audit runs one mechanism, but kind {:?} has {} live grid points here: give \
             each grid key of the method a single value",
            m.grid.kind(),
            live.len()
        );
    };
    let certificate = m.grid.certificate(m.common.calibration);
    let target = ctx.target(epsilon, Some(certificate))?;
    let mech = m.grid.build(&m.common, p, n, target, &ctx.rdp)?;
    Ok(Audited {
        event: mech.event(),
        label: m.grid.label(p),
        clip: Some(m.grid.clip(p)),
        white_box: G::white_box(&mech),
        release: Box::new(PointRelease::<G> { mech }),
        neighbours: Neighbours::ReplaceOne,
        certificate,
    })
}
