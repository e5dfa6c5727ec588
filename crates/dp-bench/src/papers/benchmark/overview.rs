//! The parts of `leaderboard.md` around the per-cell tables: first its summary (the top three
//! per dataset at ε = 1 and 0.1 beside the non-private reference, then the comparisons over
//! datasets), then how to read the labels; after the tables, tuning gaps and wall times.

use super::cell_stats::MIN_TRIALS;
use super::load::{Entry, Role, Run, reads_rows};
use super::rank::{Overall, View, median_wall_ms, ranked_at, tuning_gaps};
use super::stats::ALPHA;
use super::table::{few_trial_entries, num};
use crate::figures::csv::format_number;
use crate::quoting::md_cell;

/// The ε of the summary's top-three table.
pub const SUMMARY_EPSILONS: [f64; 2] = [1.0, 0.1];

/// How to read the labels, before the tables.
pub const HOW_TO_READ: &str = "> **How to read.** A *learner* is a method kind with its \
calibration and tuning, never a config's method name, so it is one row across datasets: `alg1` \
is Redberg et al.'s Algorithm 1, `dpsgd` DP-SGD, `amp` / `amp_hf` Iyengar et al.'s approximate \
minima perturbation (hf: hyperparameter-free), `psgd`, `ppsgd`, `pscpsgd` and `pfw` their \
private SGD, permutation-based SGD, its strongly convex variant and Frank–Wolfe, `external …` an \
outside learner run as a worker process. In brackets, the calibration: *(certified)* noise \
calibrated by this project's accountants, *(paper)* as the paper computes it, *(declared)* an \
outside learner certified from the privacy event it declares. *honest*: tuned over a fixed \
prior with the tuning paid for in the budget (Papernot & Steinke 2022); *fixed*: a tunable \
learner run once with a-priori defaults; no tuning label: nothing to tune; *best of grid \
(tuning not paid)*: the dishonest reference, drawn, never ranked. *relation*: the neighbouring \
relation of the certified ε, one for the whole leaderboard (replace-one when the runs set \
`relation = \"replace_one\"`: an add/remove learner is calibrated and certified under it by \
group privacy, its add/remove ε shown beside; replace-one DP implies no add/remove bound); an \
entry under another relation is listed and drawn, not ranked. *guarantee*: *pure ε* where the \
certified ε holds with δ = 0, else (ε, δ) at the dataset's δ. \
*rank*: by mean accuracy in the cell (exact ties share the mean rank); *vs best*: a one-sided \
Welch test of the best against each learner, Holm-corrected over the cell at α = 0.05, \
annotates (indistinguishable / worse) and never reorders. † marks a ranked entry with fewer \
than MIN_TRIALS trials; ‡ a dataset whose encoding reads the rows (not end-to-end private). \
Validation protocol: every choice reads validation scores only (released privately and paid \
for under honest tuning, on validation rows carved from the training rows by a fixed seed); \
the test rows are read once per released model.\n";

/// The title, the header counts, the summary and the how-to-read box.
pub fn head(runs: &[Run], o: &Overall) -> String {
    let few = few_trial_entries(runs);
    let mut md = format!(
        "# Leaderboard: every learner under one honest protocol\n\n{} dataset(s), {} \
         entries (learner, dataset, ε); {few} ranked entr{} fewer than {MIN_TRIALS} trials: \
         still ranked, marked †. Every value is recomputed from the runs' checksummed cells.\n\
         \n# Summary\n\n## Top three by mean accuracy\n\nRanked entries only (honest, \
         on the ranking relation, a result at the target ε); the last column is the non-private \
         reference.\n\n| dataset | ε | 1st | 2nd | 3rd | non-private |\n\
         |---|---|---|---|---|---|\n",
        runs.len(),
        runs.iter().map(|r| r.entries.len()).sum::<usize>(),
        if few == 1 { "y has" } else { "ies have" },
    );
    for run in runs {
        for eps in SUMMARY_EPSILONS {
            if run.epsilons.contains(&eps) {
                md.push_str(&top_three(run, eps));
            }
        }
    }
    let reading: Vec<String> = runs
        .iter()
        .filter_map(|r| reads_rows(&r.dataset).map(|why| format!("{}: {why}", r.dataset)))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if !reading.is_empty() {
        md.push_str(&format!(
            "
‡ Not end-to-end private: the dataset is encoded as its paper's script encodes \
             it, which reads the rows, a release no learner pays for (the certified ε covers \
             the learners, not the encoding). {}.\n",
            md_cell(&reading.join("; "))
        ));
    }
    md.push_str(&view_md("all datasets", &o.all, None));
    if o.binary.runs == o.all.runs {
        md.push_str(
            "\n## Over datasets: binary datasets\n\nEvery dataset here is binary (no config \
             sets `dataset.one_vs_all = true`): this view is the one above.\n",
        );
    } else {
        md.push_str(&view_md(
            "binary datasets",
            &o.binary,
            Some("The datasets whose config does not set `dataset.one_vs_all = true`."),
        ));
    }
    md.push_str("\n# How to read\n\n");
    md.push_str(&HOW_TO_READ.replace("MIN_TRIALS", &MIN_TRIALS.to_string()));
    md
}

fn top_three(run: &Run, eps: f64) -> String {
    let mut ranked: Vec<&Entry> = ranked_at(run, eps).collect();
    ranked.sort_by(|a, b| b.mean.total_cmp(&a.mean).then(a.learner.cmp(&b.learner)));
    let mut cols: Vec<String> = ranked
        .iter()
        .take(3)
        .map(|e| {
            let dagger = if e.few_trials() { " †" } else { "" };
            format!("{} {}{dagger}", md_cell(&e.learner), num(e.mean, 2))
        })
        .collect();
    cols.resize(3, "–".into());
    let np: Vec<String> = run
        .entries
        .iter()
        .filter(|e| e.epsilon == eps && e.role == Role::Reference && e.mean.is_finite())
        .map(|e| format!("{} {}", md_cell(&e.learner), num(e.mean, 2)))
        .collect();
    format!(
        "| {} | {} | {} | {} |\n",
        md_cell(&run.label()),
        format_number(eps),
        cols.join(" | "),
        if np.is_empty() {
            "–".into()
        } else {
            np.join("; ")
        }
    )
}

/// One comparison over datasets: its cells, average ranks and tests.
fn view_md(name: &str, v: &View, note: Option<&str>) -> String {
    let mut md = format!("\n## Over datasets: {name}\n\n");
    if let Some(n) = note {
        md.push_str(n);
        md.push_str("\n\n");
    }
    if v.learners.is_empty() {
        md.push_str(&format!(
            "No comparison: no learner has a ranked result on every one of these {} \
             dataset(s) in a common cell.\n",
            v.runs.len()
        ));
        return md;
    }
    let cells: usize = v.cells.iter().map(|c| c.1.len()).sum();
    let listed: Vec<String> = v
        .cells
        .iter()
        .map(|(stem, eps)| {
            let e: Vec<String> = eps.iter().map(|&x| format_number(x)).collect();
            format!("{} (ε ∈ {{{}}})", md_cell(stem), e.join(", "))
        })
        .collect();
    md.push_str(&format!(
        "The {} learner(s) with a ranked result on every one of the {} dataset(s), ranked among \
         themselves on the {cells} (dataset, ε) cell(s) where all of them have one: {}. A block \
         is a dataset: a learner's rank on it is its mean rank over that dataset's cells listed \
         here (they share one split, so they are not independent blocks); its average rank is \
         the mean over the {} block(s), the same blocks as Friedman's test below.\n\n\
         | learner | average rank |\n|---|---|\n",
        v.learners.len(),
        v.runs.len(),
        listed.join("; "),
        v.cells.len()
    ));
    for (l, r) in &v.learners {
        md.push_str(&format!("| {} | {} |\n", md_cell(l), num(*r, 3)));
    }
    match &v.friedman {
        Some(f) => {
            let verdict = if f.p < ALPHA {
                "rejected at α = 0.05: the Nemenyi post-hoc test applies"
            } else {
                "not rejected at α = 0.05: no learner is shown to differ, and the CD diagram \
                 is for information only"
            };
            md.push_str(&format!(
                "\nk = {}, N = {}: Friedman χ²_F = {:.3} on {} df; Iman–Davenport F_F = {} on \
                 ({}, {}) df, p = {:.4} ({verdict}). Nemenyi critical difference at α = 0.05: \
                 CD = {}.\n",
                f.k,
                f.n,
                f.chi2,
                f.k - 1,
                if f.f.is_finite() {
                    format!("{:.3}", f.f)
                } else {
                    "∞".into()
                },
                f.k - 1,
                (f.k - 1) * (f.n - 1),
                f.p,
                v.cd.map_or("– (k beyond the table)".into(), |c| format!("{c:.3}"))
            ));
        }
        None => md.push_str("\nNo Friedman test: it needs at least two blocks and two learners.\n"),
    }
    md
}

/// Tuning gaps and wall times, after the per-cell tables.
pub fn tail(runs: &[Run]) -> String {
    let mut md = String::from(
        "\n# How far honest tuning moves each learner\n\nDishonest (best of grid, its tuning \
         not paid for) minus honest mean accuracy, in points, over the (dataset, ε) cells \
         where both are results.\n\n| learner | mean gap | largest gap | cells |\n\
         |---|---|---|---|\n",
    );
    let gaps = tuning_gaps(runs);
    if gaps.is_empty() {
        md.push_str("| (no learner run both ways) | – | – | – |\n");
    }
    for (l, mean, max, n) in gaps {
        md.push_str(&format!(
            "| {} | {} | {} | {n} |\n",
            md_cell(&l),
            num(mean, 2),
            num(max, 2)
        ));
    }
    md.push_str(
        "\n# Wall time\n\nMedian wall time of one cell (one trial at one ε, tuning runs \
         included), from each run's `timings.csv`.\n\n| learner | median ms per cell |\n\
         |---|---|\n",
    );
    for (l, ms) in median_wall_ms(runs) {
        md.push_str(&format!("| {} | {} |\n", md_cell(&l), num(ms, 1)));
    }
    md
}
