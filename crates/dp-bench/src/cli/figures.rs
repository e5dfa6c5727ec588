//! `dp-bench figures`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::figures::{self, Outcome};

/// Papers whose figures can be regenerated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Paper {
    /// Redberg, Koskela & Wang (2023): Figures 1–5 and Tables 1–2.
    Redberg2023,
}

impl Paper {
    fn stem(self) -> &'static str {
        match self {
            Paper::Redberg2023 => "redberg2023",
        }
    }
}

/// Arguments of `dp-bench figures`.
#[derive(Args)]
pub struct FiguresArgs {
    /// Which paper.
    #[arg(value_enum)]
    pub paper: Paper,
    /// Output folder [default: results/figures/<paper>/].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Folder holding experiment results as <config stem>/summary.csv (for Figure 2 and the tables).
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results: PathBuf,
}

/// Runs the subcommand.
pub fn run(args: FiguresArgs) -> anyhow::Result<()> {
    let out = args.out.unwrap_or_else(|| {
        PathBuf::from("results")
            .join("figures")
            .join(args.paper.stem())
    });
    let outcomes = match args.paper {
        Paper::Redberg2023 => figures::redberg2023(&out, &args.results)?,
    };
    for o in outcomes {
        match o {
            Outcome::Written(files) => {
                for f in files {
                    println!("wrote {}", f.display());
                }
            }
            Outcome::Skipped(why) => eprintln!("note: {why}"),
        }
    }
    Ok(())
}
