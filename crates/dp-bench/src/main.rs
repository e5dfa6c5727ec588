//! `dp-bench`: privacy calculators, dataset tools, TOML-defined experiment grids and figures.
//! Everything lives in the library (`dp_bench`); this is only the entry point.

fn main() -> std::process::ExitCode {
    dp_bench::cli::main_with(std::env::args_os().collect())
}
