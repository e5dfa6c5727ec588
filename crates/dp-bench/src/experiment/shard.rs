//! Shards: a deterministic, cost-balanced split of a config's cells into `N` parts, each run
//! by its own process (a Slurm array task, a Kubernetes indexed-job pod, a shell loop) into its
//! own folder `RESULTS/shards/I-of-N/`, and merged afterwards (`dp-bench merge`).
//!
//! The split depends only on the config: cells are grouped by (method, trial), so that the ε
//! values of one trial stay together (Iyengar et al.'s P-PSGD shares one descent across them),
//! and the groups are dealt largest first to the least loaded shard (longest processing time
//! first) by each method's static cost estimate ([`crate::methods::Method::cost`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::experiment::config::Config;
use crate::experiment::grid::Cell;

/// Shard `index` (0-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which part, `0..count`.
    pub index: usize,
    /// How many parts.
    pub count: usize,
}

/// Most shards of one config (and tasks of one Slurm array). Each shard is a task with its own
/// folder, journal and script line: 10⁴ is ten times Slurm's default `MaxArraySize` (1001),
/// and more cannot help a grid whose cells are minutes each, while 10⁸ filled memory.
pub const MAX_SHARDS: usize = 10_000;

/// What `--shard` accepts, for error messages.
pub const SHARD_FORMS: &str = "I/N (0 <= I < N), slurm (SLURM_ARRAY_TASK_ID of \
     SLURM_ARRAY_TASK_COUNT), slurm/N (SLURM_ARRAY_TASK_ID of N) or k8s/N \
     (JOB_COMPLETION_INDEX of N)";

impl Shard {
    /// Parses `I/N`, `slurm`, `slurm/N` or `k8s/N`, reading batch-system variables through
    /// `env`. `slurm/N` keeps N fixed when a single task is resubmitted (`sbatch --array=K`
    /// makes `SLURM_ARRAY_TASK_COUNT` 1), so generated scripts use it.
    pub fn parse(spec: &str, env: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        let var = |name: &str| -> Result<usize, String> {
            let v = env(name).ok_or_else(|| {
                format!("--shard {spec}: {name} is not set (is this a batch task?)")
            })?;
            v.trim()
                .parse()
                .map_err(|_| format!("--shard {spec}: {name} = {v:?} is not an index"))
        };
        let count_of = |n: &str| -> Result<usize, String> {
            n.parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| format!("--shard {spec}: N = {n:?} must be an integer >= 1"))
        };
        let (index, count) = match spec.split_once('/') {
            None if spec == "slurm" => {
                (var("SLURM_ARRAY_TASK_ID")?, var("SLURM_ARRAY_TASK_COUNT")?)
            }
            Some(("slurm", n)) => (var("SLURM_ARRAY_TASK_ID")?, count_of(n)?),
            Some(("k8s", n)) => (var("JOB_COMPLETION_INDEX")?, count_of(n)?),
            Some((i, n)) => (
                i.parse()
                    .map_err(|_| format!("--shard {spec}: I = {i:?} is not an index"))?,
                count_of(n)?,
            ),
            None => return Err(format!("--shard {spec:?}: expected {SHARD_FORMS}")),
        };
        if count > MAX_SHARDS {
            return Err(format!(
                "--shard {spec}: a split into {count} shards is more than {MAX_SHARDS} \
                 (MAX_SHARDS, docs/limits.md); split into fewer"
            ));
        }
        if index >= count {
            return Err(format!(
                "--shard {spec}: index {index} is not below the shard count {count}"
            ));
        }
        Ok(Shard { index, count })
    }

    /// The shard's own results folder under the config's results folder `out`.
    pub fn dir(&self, out: &Path) -> PathBuf {
        out.join(SHARDS_DIR)
            .join(format!("{}-of-{}", self.index, self.count))
    }
}

/// Folder of the shards under a results folder.
pub use crate::files::SHARDS_DIR;
/// A shard's description, next to its cells.
pub const SHARD_FILE: &str = "shard.json";

/// What a shard records about itself for the merge.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ShardInfo {
    /// Hash of the config that made the cells ([`fingerprint`]).
    pub config_fingerprint: String,
    /// Which part.
    pub index: usize,
    /// Of how many.
    pub count: usize,
    /// Cells assigned to it.
    pub cells: usize,
    /// The run's dataset in words (for the merged figure's title).
    pub dataset_label: String,
}

/// Writes `dir/shard.json` atomically.
pub fn write_info(dir: &Path, info: &ShardInfo) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(info)?;
    crate::files::write_text_atomic(&dir.join(SHARD_FILE), &text)
}

/// Reads `dir/shard.json`.
pub fn read_info(dir: &Path) -> anyhow::Result<ShardInfo> {
    let path = dir.join(SHARD_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{} is not a shard description: {e}", path.display()))
}

/// The hash of a config's canonical text: shards of one config agree on it, shards of an
/// edited config do not.
pub fn fingerprint(cfg: &Config) -> anyhow::Result<String> {
    let d = Sha256::digest(cfg.to_toml()?.as_bytes());
    Ok(d[..12].iter().map(|b| format!("{b:02x}")).collect())
}

/// The shard of every cell (`cells` as [`crate::experiment::grid::expand`] gives them).
pub fn assign(cfg: &Config, cells: &[Cell], count: usize) -> Vec<usize> {
    // Groups of cells that share (method, trial), with their summed cost; the BTreeMap keys
    // make the order independent of anything but the config.
    let mut groups: BTreeMap<(String, u32), (f64, Vec<usize>)> = BTreeMap::new();
    for (i, c) in cells.iter().enumerate() {
        let cost = cfg.methods[&c.method].method.cost().max(0.0);
        let g = groups.entry((c.method.clone(), c.trial)).or_default();
        g.0 += cost;
        g.1.push(i);
    }
    let mut order: Vec<(f64, Vec<usize>)> = groups.into_values().collect();
    // Largest first; equal costs keep their (method, trial) order (the sort is stable).
    order.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut load = vec![0.0f64; count];
    let mut shard = vec![0; cells.len()];
    for (cost, members) in order {
        let least = (0..count)
            .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
            .expect("count >= 1");
        load[least] += cost;
        for i in members {
            shard[i] = least;
        }
    }
    shard
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::grid::expand;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn shard_specs() {
        let none = env(&[]);
        assert_eq!(
            Shard::parse("2/4", &none).unwrap(),
            Shard { index: 2, count: 4 }
        );
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "5"),
        ]);
        assert_eq!(
            Shard::parse("slurm", &slurm).unwrap(),
            Shard { index: 3, count: 5 }
        );
        // A resubmitted single task: the count comes from the spec, not the array.
        let resubmitted = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "1"),
        ]);
        assert_eq!(
            Shard::parse("slurm/5", &resubmitted).unwrap(),
            Shard { index: 3, count: 5 }
        );
        assert!(Shard::parse("slurm", &resubmitted).is_err());
        let k8s = env(&[("JOB_COMPLETION_INDEX", "0")]);
        assert_eq!(
            Shard::parse("k8s/2", &k8s).unwrap(),
            Shard { index: 0, count: 2 }
        );
        for bad in ["4/4", "x/2", "1/0", "slurm", "k8s/3", "1", "1/2/3"] {
            let err = Shard::parse(bad, &none).unwrap_err();
            assert!(err.contains("--shard"), "{bad}: {err}");
        }
        assert_eq!(
            Shard { index: 1, count: 3 }.dir(Path::new("r")),
            Path::new("r/shards/1-of-3")
        );
    }

    const CONFIG: &str = r#"
seed = 1
trials = 5
epsilons = [0.5, 1.0, 4.0]
delta = 1e-5
[dataset]
name = "synthetic-l"
[methods.alg1]
kind = "alg1"
[methods.sgd]
kind = "dpsgd"
tuning = "dishonest"
epochs = 20
grid_size = 4
"#;

    /// Every cell in exactly one shard, a trial's ε together, loads balanced, and the split a
    /// function of the config alone.
    #[test]
    fn every_cell_lands_in_one_balanced_shard() {
        let cfg = Config::parse(CONFIG, Path::new("t.toml")).unwrap();
        let cells = expand(&cfg);
        for count in 1..=7 {
            let shard = assign(&cfg, &cells, count);
            assert_eq!(shard.len(), cells.len());
            assert!(shard.iter().all(|&s| s < count));
            assert_eq!(shard, assign(&cfg, &cells, count), "deterministic");
            for (c, &s) in cells.iter().zip(&shard) {
                for (d, &t) in cells.iter().zip(&shard) {
                    if (c.method == d.method) && (c.trial == d.trial) {
                        assert_eq!(s, t, "a trial's ε share a shard");
                    }
                }
            }
            let mut load = vec![0.0; count];
            for (c, &s) in cells.iter().zip(&shard) {
                load[s] += cfg.methods[&c.method].method.cost();
            }
            let max_group = cfg.methods["sgd"].method.cost() * 3.0;
            let (lo, hi) = load
                .iter()
                .fold((f64::MAX, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
            // Longest processing time first: no shard exceeds another by more than a group.
            assert!(hi - lo <= max_group + 1e-9, "count {count}: {load:?}");
        }
        let fp = fingerprint(&cfg).unwrap();
        let edited = Config::parse(
            &CONFIG.replace("trials = 5", "trials = 6"),
            Path::new("t.toml"),
        )
        .unwrap();
        assert_ne!(fp, fingerprint(&edited).unwrap());
        assert_eq!(fp, fingerprint(&cfg).unwrap());
    }
}
