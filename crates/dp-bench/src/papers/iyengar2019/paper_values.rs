//! The paper's Fig. 1 (logistic regression) and Fig. 3 (Huber SVM) accuracies, in percent, at
//! ε = 0.1 for binary tasks and ε = 1 for multiclass ones (`docs/reference/iyengar2019.md`
//! §3.2). Columns: NP, AMP, H-F AMP, P-SGD, P-PSGD, P-SCPSGD, P-FW.

/// Algorithm names in the order of the paper's columns.
pub const ALGORITHMS: [&str; 7] = ["np", "amp", "amp_hf", "psgd", "ppsgd", "pscpsgd", "pfw"];

/// Display names of [`ALGORITHMS`].
pub const DISPLAY: [&str; 7] = [
    "NP", "AMP", "H-F AMP", "P-SGD", "P-PSGD", "P-SCPSGD", "P-FW",
];

/// (dataset stem, ε of the table, accuracies) of Fig. 1.
pub const FIG1: &[(&str, f64, [f64; 7])] = &[
    (
        "synthetic-l",
        0.1,
        [94.9, 83.1, 80.6, 81.6, 81.7, 76.4, 81.8],
    ),
    ("adult", 0.1, [84.8, 79.1, 78.7, 78.5, 77.4, 77.2, 76.9]),
    ("kddcup99", 0.1, [99.1, 97.5, 97.4, 98.0, 98.1, 95.8, 96.8]),
    ("covertype", 1.0, [71.2, 64.3, 63.5, 65.0, 62.4, 62.2, 63.0]),
    ("mnist", 1.0, [91.5, 71.9, 70.5, 68.6, 68.0, 63.2, 65.0]),
    (
        "synthetic-h",
        0.1,
        [95.8, 53.2, 51.4, 52.8, 53.5, 52.0, 57.6],
    ),
    ("gisette", 0.1, [96.6, 62.8, 59.7, 61.5, 62.3, 61.3, 58.3]),
    ("real-sim", 0.1, [93.3, 73.1, 71.9, 66.3, 66.1, 65.6, 69.8]),
    ("rcv1", 0.1, [93.5, 64.2, 59.9, 55.1, 58.9, 56.2, 64.1]),
];

/// (dataset stem, ε of the table, accuracies) of Fig. 3.
pub const FIG3: &[(&str, f64, [f64; 7])] = &[
    (
        "synthetic-l",
        0.1,
        [94.9, 89.3, 87.8, 85.6, 86.2, 79.4, 86.8],
    ),
    ("adult", 0.1, [84.8, 79.6, 77.5, 79.0, 76.5, 76.0, 77.8]),
    ("kddcup99", 0.1, [99.1, 98.7, 98.7, 98.5, 98.5, 98.1, 98.0]),
    ("covertype", 1.0, [71.5, 66.4, 65.3, 64.3, 62.3, 62.7, 63.3]),
    ("mnist", 1.0, [91.5, 74.7, 73.7, 69.6, 72.9, 70.6, 65.1]),
    (
        "synthetic-h",
        0.1,
        [96.5, 55.2, 54.3, 55.0, 56.6, 55.6, 56.0],
    ),
    ("gisette", 0.1, [96.6, 69.9, 67.9, 65.7, 70.6, 66.8, 66.8]),
    ("real-sim", 0.1, [93.6, 78.3, 76.7, 73.6, 71.8, 69.7, 78.3]),
    ("rcv1", 0.1, [93.8, 74.5, 72.9, 71.3, 70.1, 69.7, 75.8]),
];

/// The paper's value for (table, dataset, algorithm), if it has one.
pub fn paper_accuracy(huber: bool, dataset: &str, algorithm: &str) -> Option<f64> {
    let table = if huber { FIG3 } else { FIG1 };
    let col = ALGORITHMS.iter().position(|a| *a == algorithm)?;
    table
        .iter()
        .find(|(d, _, _)| *d == dataset)
        .map(|(_, _, v)| v[col])
}

/// ε of the paper's table for a dataset (1 for multiclass, 0.1 otherwise).
pub fn table_epsilon(dataset: &str) -> f64 {
    FIG1.iter()
        .find(|(d, _, _)| *d == dataset)
        .map_or(0.1, |(_, e, _)| *e)
}
