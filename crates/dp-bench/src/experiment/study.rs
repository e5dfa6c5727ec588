//! Studies propose the cells of an experiment. Today's grid (method × ε × trial) proposes every
//! cell at once; a sequential study (Avent et al.'s DPareto, where ε is an output of the
//! hyperparameters) proposes its next batch from the cells already finished, as argmin's
//! solvers propose their next iterate. The runner ([`super::runner`]) drives either.

use std::collections::HashSet;

use super::grid::Cell;
use super::record::CellRecord;

/// Proposes cells until it has nothing left to run.
pub trait Study: Send {
    /// The next cells to run given every finished cell; an empty batch ends the study.
    fn propose(&mut self, finished: &[CellRecord]) -> anyhow::Result<Vec<Cell>>;

    /// How many cells the study has in all, when known in advance.
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
