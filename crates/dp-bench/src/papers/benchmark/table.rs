//! `leaderboard.md`, `leaderboard.csv` and `learners.csv`: every (dataset, ε) cell with each
//! learner's accuracy, certified ε and rank; then the ranks over datasets with Friedman's
//! test and the Nemenyi CD, how far honest tuning moves each learner, and wall times.

use std::path::{Path, PathBuf};

use super::load::{Entry, Role, Run};
use super::rank::{Overall, median_wall_ms, rank_run, tuning_gaps};
use super::stats::ALPHA;
use crate::figures::csv::{Field, LongCsv, format_number};
use crate::files::write_text_atomic;
use crate::quoting::md_cell;

/// What the per-cell tables mean, above them in `leaderboard.md`.
pub const CAPTION: &str = "Each table is one (dataset, ε) cell: test accuracy (mean ± 95 % CI \
over the trials, from the run's summary), the certified ε (the largest over the trials) and \
the rank. *relation* is the neighbouring relation the certified ε is for: equal ε under \
add/remove and replace-one are not the same guarantee (add/remove (ε, δ) implies replace-one \
(2ε, (1 + e^ε)δ), not (ε, δ)), so compare across relations with that in mind. Learners not \
significantly worse than the best share place 1: a one-sided Welch \
t-test at α = 0.05 on the per-trial accuracies (the trials share one split but draw \
independent noise, so they are unpaired) does not find them below the best. Those share the \
mean rank (1 + … + m)/m, the rest follow by mean accuracy (ties share their mean rank, as in \
Demšar 2006); `rank` is what the average ranks below are made of. Dishonest (best of grid, \
tuning not paid) and non-private entries are references and are not ranked; nor is a cell \
whose certified ε exceeds its target or whose accuracy is missing (a failed or over-budget \
external learner).\n";

fn role_name(r: Role) -> &'static str {
    match r {
        Role::Ranked => "ranked",
        Role::Dishonest => "dishonest (reference)",
        Role::Refused => "refused: ε not certified (reference)",
        Role::Reference => "non-private (reference)",
    }
}

fn num(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "–".into()
    } else if v.is_infinite() {
        "∞".into()
    } else {
        format!("{v:.digits$}")
    }
}

/// Writes the three files into `out`.
pub fn write(out: &Path, runs: &[Run], overall: &Overall) -> anyhow::Result<Vec<PathBuf>> {
    let mut csv = LongCsv::new(&[
        "dataset",
        "epsilon",
        "learner",
        "role",
        "relation",
        "mean_accuracy",
        "ci95",
        "trials",
        "epsilon_certified",
        "place",
        "rank",
        "tied_with_best",
        "note",
    ]);
    let mut md = String::from("# Leaderboard: every learner under one honest protocol\n\n");
    md.push_str(CAPTION);
    for run in runs {
        let ranks = rank_run(run, None);
        for &eps in &run.epsilons {
            md.push_str(&format!(
                "\n## {} ({}), ε = {}\n\n| learner | relation | accuracy (%) | certified ε | \
                 place | rank | note |\n|---|---|---|---|---|---|---|\n",
                md_cell(&run.stem),
                md_cell(&run.dataset),
                format_number(eps)
            ));
            let mut here: Vec<&Entry> = run.entries.iter().filter(|e| e.epsilon == eps).collect();
            let rank_of = |e: &Entry| ranks.get(&(eps.to_bits(), e.learner.clone())).cloned();
            // Ranked results by rank, then unranked ones, then the references.
            here.sort_by(|a, b| {
                let key = |e: &Entry| {
                    let r = rank_of(e).map_or(f64::INFINITY, |r| r.rank);
                    (e.role, r)
                };
                let (ka, kb) = (key(a), key(b));
                ka.0.cmp(&kb.0)
                    .then(ka.1.total_cmp(&kb.1))
                    .then(b.mean.total_cmp(&a.mean))
            });
            for e in here {
                let r = rank_of(e);
                let place = r.as_ref().map(|r| {
                    if r.tied_with_best {
                        1
                    } else {
                        1 + ranks
                            .iter()
                            .filter(|((b, _), o)| *b == eps.to_bits() && o.rank < r.rank)
                            .count()
                    }
                });
                let note = match e.role {
                    Role::Ranked => e.unranked_reason().map(|w| format!("not ranked: {w}")),
                    Role::Dishonest => Some("best of grid, tuning not paid".into()),
                    Role::Refused => Some("refused as private: no certified ε".into()),
                    Role::Reference => Some("non-private reference".into()),
                }
                .unwrap_or_default();
                md.push_str(&format!(
                    "| {} | {} | {} ± {} | {} | {} | {} | {} |\n",
                    md_cell(&e.learner),
                    if e.relation.is_empty() {
                        "–"
                    } else {
                        e.relation
                    },
                    num(e.mean, 2),
                    num(e.ci95, 2),
                    num(e.epsilon_certified, 3),
                    place.map_or("–".into(), |p| p.to_string()),
                    r.as_ref().map_or("–".into(), |r| num(r.rank, 2)),
                    md_cell(&note)
                ));
                csv.push(vec![
                    Field::Text(run.stem.clone()),
                    Field::Num(eps),
                    Field::Text(e.learner.clone()),
                    Field::Text(role_name(e.role).into()),
                    Field::Text(e.relation.into()),
                    Field::Num(e.mean),
                    Field::Num(e.ci95),
                    Field::Num(e.accuracies.len() as f64),
                    Field::Num(e.epsilon_certified),
                    Field::Num(place.map_or(f64::NAN, |p| p as f64)),
                    Field::Num(r.as_ref().map_or(f64::NAN, |r| r.rank)),
                    Field::Text(
                        r.as_ref()
                            .map_or("", |r| if r.tied_with_best { "yes" } else { "no" })
                            .into(),
                    ),
                    Field::Text(note),
                ])?;
            }
        }
    }
    md.push_str(&over_datasets(runs, overall));
    let learners = learners_csv(runs, overall)?;
    let (c, m, l) = (
        out.join("leaderboard.csv"),
        out.join("leaderboard.md"),
        out.join("learners.csv"),
    );
    csv.write(&c)?;
    learners.write(&l)?;
    write_text_atomic(&m, &md)?;
    Ok(vec![m, c, l])
}

/// The Markdown after the cells: average ranks, the tests, tuning gaps and wall times.
fn over_datasets(runs: &[Run], o: &Overall) -> String {
    let mut md = format!(
        "\n# Over datasets\n\nA learner's rank on a dataset is its mean rank over that \
         dataset's ε-cells (the cells share one split, so they are not independent blocks; \
         Demšar 2006, as recommended there); its average rank is the mean over the {} \
         dataset(s) where it has a ranked result.\n\n| learner | average rank | datasets |\n\
         |---|---|---|\n",
        runs.len()
    );
    for (l, r, n) in &o.average {
        md.push_str(&format!("| {} | {} | {n} |\n", md_cell(l), num(*r, 2)));
    }
    md.push_str(&format!(
        "\nFriedman's test compares the {} learner(s) with a ranked result on every dataset, \
         re-ranked among themselves on the ε-cells where all of them have a result (so that \
         every block ranks the same learners); a block is a dataset with at least one such \
         cell ({} of {}).\n\n",
        o.complete.len(),
        o.friedman.map_or(0, |f| f.n),
        runs.len()
    ));
    match &o.friedman {
        Some(f) => {
            md.push_str("| learner | mean rank |\n|---|---|\n");
            for (l, r) in &o.complete {
                md.push_str(&format!("| {} | {} |\n", md_cell(l), num(*r, 3)));
            }
            let verdict = if f.p < ALPHA {
                "rejected at α = 0.05: the Nemenyi post-hoc test applies"
            } else {
                "not rejected at α = 0.05: no learner is shown to differ, and the CD diagram \
                 is for information only"
            };
            md.push_str(&format!(
                "\nk = {}, N = {}: Friedman χ²_F = {:.3} on {} df; Iman–Davenport F_F = {:.3} \
                 on ({}, {}) df, p = {:.4} ({verdict}). Nemenyi critical difference at α = 0.05: \
                 CD = {} (`cd.png`: learners joined by a bar are not significantly different).\n",
                f.k,
                f.n,
                f.chi2,
                f.k - 1,
                f.f,
                f.k - 1,
                (f.k - 1) * (f.n - 1),
                f.p,
                o.cd.map_or("– (k beyond the table)".into(), |c| format!("{c:.3}"))
            ));
        }
        None => md.push_str(
            "No Friedman test: it needs at least two datasets and two learners ranked on all \
             of them.\n",
        ),
    }
    md.push_str(
        "\n## How far honest tuning moves each learner\n\nDishonest (best of grid, its tuning \
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
        "\n## Wall time\n\nMedian wall time of one cell (one trial at one ε, tuning runs \
         included), from each run's `timings.csv`.\n\n| learner | median ms per cell |\n\
         |---|---|\n",
    );
    for (l, ms) in median_wall_ms(runs) {
        md.push_str(&format!("| {} | {} |\n", md_cell(&l), num(ms, 1)));
    }
    md
}

/// One row per learner: its role, ranks, tuning gap and wall time.
fn learners_csv(runs: &[Run], o: &Overall) -> anyhow::Result<LongCsv> {
    let mut csv = LongCsv::new(&[
        "learner",
        "role",
        "relation",
        "average_rank",
        "datasets",
        "friedman_mean_rank",
        "tuning_gap_mean",
        "tuning_gap_max",
        "tuning_gap_cells",
        "median_wall_ms",
    ]);
    let gaps = tuning_gaps(runs);
    let wall = median_wall_ms(runs);
    let mut learners: Vec<(&str, &str, Role, &str)> = runs
        .iter()
        .flat_map(|r| &r.entries)
        .map(|e| (e.learner.as_str(), e.base.as_str(), e.role, e.relation))
        .collect();
    learners.sort_by(|a, b| (a.2, a.0).cmp(&(b.2, b.0)));
    learners.dedup();
    for (l, base, role, relation) in learners {
        let avg = o.average.iter().find(|a| a.0 == l);
        let fr = o
            .complete
            .iter()
            .find(|a| a.0 == l)
            .map_or(f64::NAN, |a| a.1);
        let gap = gaps.iter().find(|g| g.0 == base && role == Role::Ranked);
        csv.push(vec![
            Field::Text(l.into()),
            Field::Text(role_name(role).into()),
            Field::Text(relation.into()),
            Field::Num(avg.map_or(f64::NAN, |a| a.1)),
            Field::Num(avg.map_or(0.0, |a| a.2 as f64)),
            Field::Num(fr),
            Field::Num(gap.map_or(f64::NAN, |g| g.1)),
            Field::Num(gap.map_or(f64::NAN, |g| g.2)),
            Field::Num(gap.map_or(0.0, |g| g.3 as f64)),
            Field::Num(wall.get(l).copied().unwrap_or(f64::NAN)),
        ])?;
    }
    Ok(csv)
}
