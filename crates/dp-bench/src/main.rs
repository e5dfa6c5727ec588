//! `dp-bench`: privacy calculators, dataset tools, TOML-defined experiment grids and figures.
//! Everything lives in the library (`dp_bench`, package `dp-bench-lib`); this is only the
//! entry point, and the one unit that sees the build script's commit stamp.

fn main() -> std::process::ExitCode {
    dp_bench::experiment::provenance::set_build_commit(env!("DPBENCH_BUILD_COMMIT"));
    if let Err(e) = dp_bench::methods::external::end_workers_on_signals() {
        eprintln!(
            "warning: no handler of SIGINT/SIGTERM ({e}): a worker's children may outlive an interrupted run"
        );
    }
    dp_bench::cli::main_with(std::env::args_os().collect())
}
