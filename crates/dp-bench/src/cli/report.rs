//! `dp-bench report [RESULTS…] --out DIR`.

use std::path::PathBuf;

use clap::Args;

use super::usage;
use crate::report::write_report;

/// Arguments of `dp-bench report`.
#[derive(Args)]
pub struct ReportArgs {
    /// Results folders holding <paper>/<config stem>/ runs and your own runs [default: results].
    results: Vec<PathBuf>,
    /// Where the page goes (index.html, the figures and copies of the CSV files). The folder is
    /// replaced whole, so it must be new, empty, or one an earlier report wrote.
    #[arg(long, default_value = "report")]
    out: PathBuf,
}

/// Writes the report page.
pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let roots = if args.results.is_empty() {
        vec![PathBuf::from("results")]
    } else {
        args.results
    };
    if let Some(missing) = roots.iter().find(|r| !r.is_dir()) {
        return usage(format!(
            "results folder {} does not exist (run a config first, or name the folder)",
            missing.display()
        ));
    }
    let r = write_report(&roots, &args.out)?;
    errln!(
        "wrote {} ({} figures, {} tables, {} runs)",
        r.index.display(),
        r.figures,
        r.tables,
        r.runs
    );
    Ok(())
}
