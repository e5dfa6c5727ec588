//! Benchmark datasets: verified downloads, parsing and preprocessing.
