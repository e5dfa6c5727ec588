//! The one runner of every study: a [`Study`] proposes units from what has finished, [`drive`]
//! runs each batch in parallel on rayon's pool and hands every finished record to one [`Log`]
//! (a grid's keyed cell store, a search's sequential point log), and an [`Observer`] sees
//! progress. A grid proposes every cell at once; a search proposes its planned points at once,
//! then DPareto's proposals one at a time, each from all the points before it (as argmin's
//! solvers propose their next iterate). Resume is the same for both: the study proposes only
//! what its log does not hold.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::study::Study;

/// Where a study's finished records go, and what it reads back on resume.
pub trait Log {
    /// One finished unit.
    type Record: Send;

    /// Every record held, in the order the study reads them.
    fn rows(&self) -> &[Self::Record];

    /// Adds a record (written for good by the next [`Log::flush`], or at once).
    fn append(&mut self, record: Self::Record) -> anyhow::Result<()>;

    /// Writes what was appended: from then on a killed run keeps it.
    fn flush(&mut self) -> anyhow::Result<()>;

    /// Whether records must be appended in proposal order: a sequential study's later
    /// proposals depend on the records before them, so a log of one holds no gaps. A keyed
    /// store takes records as they finish.
    fn ordered(&self) -> bool;
}

/// What a run shows while it goes: a progress bar, messages.
pub trait Observer<R> {
    /// A batch of `units` is about to run.
    fn batch(&self, _units: usize) {}

    /// A record goes to the log (it is appended right after).
    fn record(&self, _record: &R) {}
}

/// An observer that shows nothing.
pub struct Quiet;

impl<R> Observer<R> for Quiet {}

/// How long finished records may wait in memory before they are flushed to the log.
const FLUSH_EVERY: Duration = Duration::from_millis(20);

/// Runs `study` to its end: proposes from `log`'s records, runs each proposal with `run` in
/// parallel, appends every record; returns how many units ran. The first error (of a run or
/// of the log) stops the run after the records before it are written.
pub fn drive<S, L>(
    study: &mut S,
    log: &mut L,
    run: &(dyn Fn(&S::Unit) -> anyhow::Result<L::Record> + Sync),
    observer: &dyn Observer<L::Record>,
) -> anyhow::Result<usize>
where
    S: Study<Record = L::Record>,
    L: Log,
{
    let mut ran = 0;
    loop {
        let todo = study.propose(log.rows())?;
        if todo.is_empty() {
            return Ok(ran);
        }
        observer.batch(todo.len());
        run_batch(&todo, log, run, observer)?;
        ran += todo.len();
    }
}

/// Runs `todo` in parallel, appending each record from this thread only (polars writes from a
/// rayon worker can deadlock against polars' own pool, and one writer keeps files whole).
fn run_batch<U: Sync, L: Log>(
    todo: &[U],
    log: &mut L,
    run: &(dyn Fn(&U) -> anyhow::Result<L::Record> + Sync),
    observer: &dyn Observer<L::Record>,
) -> anyhow::Result<()> {
    let (tx, rx) = mpsc::channel::<(usize, L::Record)>();
    let ordered = log.ordered();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let workers = scope.spawn(move || {
            todo.par_iter().enumerate().try_for_each_with(
                tx,
                |tx, (i, unit)| -> anyhow::Result<()> {
                    let record = run(unit)?;
                    tx.send((i, record))
                        .map_err(|_| anyhow::anyhow!("results writer stopped"))
                },
            )
        });
        // An ordered log takes record i only after records 0..i: later ones wait here.
        let mut waiting: BTreeMap<usize, L::Record> = BTreeMap::new();
        let mut next = 0;
        let mut write_result = Ok(());
        // Finished records reach the log in batches: written once FLUSH_EVERY has passed
        // since the last write, or when none arrived for that long. A kill loses at most that
        // much work, which the resumed run redoes.
        let mut last_flush = Instant::now();
        'receive: loop {
            let got = match rx.recv_timeout(FLUSH_EVERY) {
                Ok(got) => Some(got),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            if let Some((i, record)) = got {
                waiting.insert(i, record);
                while let Some(record) = take(&mut waiting, ordered, &mut next) {
                    observer.record(&record);
                    if let Err(e) = log.append(record) {
                        write_result = Err(e);
                        break 'receive; // dropping the receiver makes the workers stop
                    }
                }
                if last_flush.elapsed() < FLUSH_EVERY {
                    continue;
                }
            }
            if let Err(e) = log.flush() {
                write_result = Err(e);
                break;
            }
            last_flush = Instant::now();
        }
        if write_result.is_ok() {
            write_result = log.flush();
        }
        let run_result = workers.join().expect("worker thread panicked");
        write_result.and(run_result)
    })
}

/// The next record the log may take: any waiting one, or for an ordered log the one numbered
/// `next`.
fn take<R>(waiting: &mut BTreeMap<usize, R>, ordered: bool, next: &mut usize) -> Option<R> {
    if !ordered {
        return waiting.pop_first().map(|(_, r)| r);
    }
    let r = waiting.remove(next)?;
    *next += 1;
    Some(r)
}
