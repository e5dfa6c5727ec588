//! `dp-bench figures`.

use std::path::PathBuf;

use clap::Args;

use crate::cli::usage;
use crate::figures::Outcome;
use crate::papers::{PAPERS, PaperSpec, paper};

/// Arguments of `dp-bench figures`.
#[derive(Args)]
pub struct FiguresArgs {
    /// Which paper (`dp-bench list` shows the ids), e.g. redberg2023.
    #[arg(required_unless_present = "all")]
    pub paper: Option<String>,
    /// Every paper of the table.
    #[arg(long, conflicts_with = "paper")]
    pub all: bool,
    /// Output folder [default: results/figures/<paper>/].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Folder holding the paper's experiment results as <config stem>/summary.csv
    /// [default: results/<paper>/].
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: FiguresArgs) -> anyhow::Result<()> {
    let papers: Vec<&PaperSpec> = match &args.paper {
        Some(id) => match paper(id) {
            Some(p) => vec![p],
            None => {
                let known: Vec<&str> = PAPERS.iter().map(|p| p.id).collect();
                return usage(format!(
                    "unknown paper {id:?}; use one of: {} (or --all)",
                    known.join(", ")
                ));
            }
        },
        None => PAPERS.iter().collect(),
    };
    if args.all && (args.out.is_some() || args.results.is_some()) && papers.len() > 1 {
        return usage("--out and --results name one paper's folders; drop them with --all");
    }
    for p in papers {
        let out = args
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("results").join("figures").join(p.id));
        let results = args
            .results
            .clone()
            .unwrap_or_else(|| PathBuf::from("results").join(p.id));
        for o in (p.figures)(&out, &results)? {
            match o {
                Outcome::Written(files) => {
                    for f in files {
                        outln!("wrote {}", f.display())?;
                    }
                }
                Outcome::Skipped(why) => errln!("note: {why}"),
            }
        }
    }
    Ok(())
}
