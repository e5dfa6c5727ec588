//! Running one config on many machines: shards of its cells ([`shard`]), their merge into the
//! results a single process would have written ([`merge`]), and Slurm job-array scripts that
//! run the shards and then the merge ([`slurm`]). Scheduling, transport and retries are the
//! batch system's; dpbench only splits deterministically and merges exactly.

pub mod merge;
/// Moved to the experiment engine, whose runner reads it; re-exported under its old path.
pub use crate::experiment::shard;
pub mod shell;
pub mod slurm;
