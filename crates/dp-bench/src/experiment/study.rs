//! Studies propose the units of an experiment. A grid (method × ε × trial) proposes every
//! cell at once; a sequential study (Avent et al.'s DPareto, where ε is an output of the
//! hyperparameters) proposes its next batch from the records already finished, as argmin's
//! solvers propose their next iterate. The one engine ([`super::engine::drive`]) runs either.

use std::collections::HashSet;

use super::grid::Cell;
use super::record::CellRecord;

/// Proposes units until it has nothing left to run.
pub trait Study: Send {
    /// What one run evaluates (a grid cell, a search point).
    type Unit: Sync;
    /// What a finished unit is stored as.
    type Record;

    /// The next units to run given every finished record; an empty batch ends the study.
    fn propose(&mut self, finished: &[Self::Record]) -> anyhow::Result<Vec<Self::Unit>>;

    /// How many units the study has in all, when known in advance.
    fn size_hint(&self) -> Option<usize>;
}

/// The full grid of a config: every method at every target ε for every trial.
pub struct GridStudy {
    cells: Vec<Cell>,
    proposed: bool,
}

impl GridStudy {
    /// These cells of a grid: all of [`super::grid::expand`]'s, or one shard's.
    pub fn of(cells: Vec<Cell>) -> Self {
        Self {
            cells,
            proposed: false,
        }
    }
}

impl Study for GridStudy {
    type Unit = Cell;
    type Record = CellRecord;

    fn propose(&mut self, finished: &[CellRecord]) -> anyhow::Result<Vec<Cell>> {
        if self.proposed {
            return Ok(Vec::new());
        }
        self.proposed = true;
        let done: HashSet<&str> = finished.iter().map(|r| r.key.as_str()).collect();
        Ok(self
            .cells
            .iter()
            .filter(|c| !done.contains(c.key().as_str()))
            .cloned()
            .collect())
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.cells.len())
    }
}
