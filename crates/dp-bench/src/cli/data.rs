//! `dp-bench data`: list, fetch and describe datasets.
//!
//! Configuration comes from the environment (`DPBENCH_DATA_DIR`, `DPBENCH_DATA_MIRROR`,
//! `DPBENCH_OFFLINE`); see `dp_data::DataConfig::from_env`.

use clap::{Args, Subcommand};
use dp_data::{DataConfig, DatasetId};

/// Arguments of `dp-bench data`.
#[derive(Args)]
pub struct DataArgs {
    #[command(subcommand)]
    command: DataCommand,
}

#[derive(Subcommand)]
enum DataCommand {
    /// List the datasets and what is cached locally.
    List,
    /// Download and verify raw files (generate synthetic ones); `all` for every dataset.
    Fetch {
        /// Dataset names.
        #[arg(required = true, value_name = "NAME")]
        names: Vec<String>,
    },
    /// Shape, sparsity, label balance, split sizes and raw-file hashes of a dataset.
    Info {
        /// Dataset name.
        name: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Runs the subcommand.
pub fn run(args: DataArgs) -> anyhow::Result<()> {
    let cfg = DataConfig::from_env();
    match args.command {
        DataCommand::List => list(&cfg),
        DataCommand::Fetch { names } => {
            let ids = if names.iter().any(|n| n == "all") {
                dp_data::list().to_vec()
            } else {
                parse_names(&names)?
            };
            for id in ids {
                for path in cfg.fetch(id)? {
                    outln!("{id}: {}", path.display())?;
                }
            }
            Ok(())
        }
        DataCommand::Info { name, json } => {
            let id = parse_names(std::slice::from_ref(&name))?[0];
            let info = cfg.info(id)?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&info)?)?;
            } else {
                outln!("{} — {}", info.name, info.summary)?;
                outln!("rows               {}", info.rows)?;
                outln!("features           {} ({})", info.features, info.storage)?;
                outln!("nonzeros           {}", info.nonzeros)?;
                outln!("positive fraction  {:.4}", info.positive_fraction)?;
                outln!("classes            {}", info.classes)?;
                outln!(
                    "train / test rows  {} / {}",
                    info.train_rows,
                    info.test_rows
                )?;
                outln!("split              {}", info.split.describe())?;
                for (file, sha) in &info.sha256 {
                    outln!("sha256             {sha}  {file}")?;
                }
                outln!("cache              {}", info.cache_file.display())?;
                match info.reads_rows {
                    None => outln!("encoding           public facts only (end-to-end private)")?,
                    Some(why) => {
                        outln!("encoding           reads the rows, not end-to-end private: {why}")?
                    }
                }
            }
            Ok(())
        }
    }
}

/// Registry ids for `names`, or a usage error (exit 2) listing the valid names.
fn parse_names(names: &[String]) -> anyhow::Result<Vec<DatasetId>> {
    let mut ids = Vec::with_capacity(names.len());
    for n in names {
        match n.parse::<DatasetId>() {
            Ok(id) => ids.push(id),
            Err(e) => return crate::cli::usage(e.to_string()),
        }
    }
    Ok(ids)
}

fn list(cfg: &DataConfig) -> anyhow::Result<()> {
    outln!("{:<18} {:<10} summary", "name", "status")?;
    for &id in dp_data::list() {
        let files = id.spec().files;
        let status = if cfg.cache_path(id).exists() {
            "ready"
        } else if files.is_empty() {
            "generated"
        } else if files
            .iter()
            .all(|f| cfg.raw_dir(id.spec().raw_dir).join(f.name).exists())
        {
            "raw"
        } else {
            "missing"
        };
        outln!("{:<18} {:<10} {}", id.name(), status, id.spec().summary)?;
    }
    outln!("cache: {}", cfg.cache_dir.display())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_are_usage_errors_listing_valid_names() {
        let err = parse_names(&["adult".into(), "adlt".into()]).unwrap_err();
        assert!(err.downcast_ref::<crate::cli::UsageError>().is_some());
        let msg = err.to_string();
        assert!(
            msg.contains("adlt") && msg.contains("synthetic-l") && msg.contains("rcv1"),
            "{msg}"
        );
        assert_eq!(
            parse_names(&["mnist".into()]).unwrap(),
            vec![DatasetId::Mnist]
        );
    }
}
