//! `leaderboard.md`, `leaderboard.csv` and `learners.csv`. The Markdown leads with its summary
//! ([`super::overview`]), then says how to read the labels, and only then lists every
//! (dataset, ε) cell: each learner's accuracy with its Student-t interval, trials, relation,
//! guarantee, certified ε, rank by mean and whether it can be told from the best.

use std::path::{Path, PathBuf};

use super::cell_stats::MIN_TRIALS;
use super::load::{Entry, Role, Run};
use super::overview;
use super::rank::{CellRank, Overall, rank_run, tuning_gaps};
use crate::figures::csv::{Field, LongCsv, format_number};
use crate::files::write_text_atomic;
use crate::quoting::md_cell;

/// As the tables spell a role.
pub fn role_name(r: Role) -> &'static str {
    match r {
        Role::Ranked => "ranked",
        Role::OffAxis => "honest, other relation (not ranked)",
        Role::Dishonest => "dishonest (reference)",
        Role::Refused => "refused: ε not certified (reference)",
        Role::Refuted => "refuted by audit (not ranked)",
        Role::Reference => "non-private (reference)",
    }
}

/// A number to `digits` decimals; "–" for NaN, "∞" for infinity.
pub fn num(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "–".into()
    } else if v.is_infinite() {
        "∞".into()
    } else {
        format!("{v:.digits$}")
    }
}

/// "mean ± half-width" ("mean (1 trial)" without an interval).
fn accuracy(e: &Entry) -> String {
    if e.mean.is_finite() && e.ci95.is_nan() {
        format!("{} ({} trial)", num(e.mean, 2), e.trials)
    } else {
        format!("{} ± {}", num(e.mean, 2), num(e.ci95, 2))
    }
}

/// The certified ε, with the add/remove ε of a method certified by group privacy beside it.
fn certified(e: &Entry) -> String {
    match e.epsilon_add_remove {
        Some(ar) => format!(
            "{} (add/remove {})",
            num(e.epsilon_certified, 3),
            num(ar, 3)
        ),
        None => num(e.epsilon_certified, 3),
    }
}

/// Why an entry carries no rank, or nothing if it has one.
fn note(e: &Entry) -> String {
    match e.role {
        Role::Ranked => e.unranked_reason().map(|w| format!("not ranked: {w}")),
        Role::OffAxis => e.off_axis_reason(),
        Role::Dishonest => Some("best of grid, tuning not paid".into()),
        Role::Refused => Some("refused as private: no certified ε".into()),
        Role::Refuted => Some("not ranked: its audit refutes what it declares".into()),
        Role::Reference => Some("non-private reference".into()),
    }
    .unwrap_or_default()
}

/// How many ranked entries have fewer than [`MIN_TRIALS`] trials.
pub fn few_trial_entries(runs: &[Run]) -> usize {
    runs.iter()
        .flat_map(|r| &r.entries)
        .filter(|e| e.few_trials())
        .count()
}

/// Writes the three files into `out`.
pub fn write(out: &Path, runs: &[Run], overall: &Overall) -> anyhow::Result<Vec<PathBuf>> {
    let mut csv = LongCsv::new(&[
        "dataset",
        "epsilon",
        "learner",
        "role",
        "relation",
        "guarantee",
        "mean_accuracy",
        "ci95_t",
        "trials",
        "few_trials",
        "epsilon_certified",
        "epsilon_add_remove",
        "rank",
        "vs_best",
        "p_holm",
        "audit",
        "note",
    ]);
    let mut md = overview::head(runs, overall);
    md.push_str("\n# Per (dataset, ε) cell\n");
    for run in runs {
        let ranks = rank_run(run, None);
        for &eps in &run.epsilons {
            md.push_str(&format!(
                "\n## {}, ε = {}\n\n| learner | relation | guarantee | accuracy (%) | \
                 trials | certified ε | rank | vs best (Holm p) | note |\n\
                 |---|---|---|---|---|---|---|---|---|\n",
                md_cell(&run.label()),
                format_number(eps)
            ));
            let rank_of = |e: &Entry| ranks.get(&(eps.to_bits(), e.learner.clone())).copied();
            let mut here: Vec<&Entry> = run.entries.iter().filter(|e| e.epsilon == eps).collect();
            // Ranked results by rank, then by role and mean.
            here.sort_by(|a, b| {
                let key = |e: &Entry| rank_of(e).map_or(f64::INFINITY, |r| r.rank);
                key(a)
                    .total_cmp(&key(b))
                    .then(a.role.cmp(&b.role))
                    .then(b.mean.total_cmp(&a.mean))
            });
            let marked = here.iter().any(|e| e.few_trials());
            for e in here {
                let r = rank_of(e);
                push_row(&mut md, &mut csv, run, e, r)?;
            }
            if marked {
                md.push_str(&format!("\n{}\n", dagger_note()));
            }
        }
    }
    md.push_str(&audits_section(runs));
    md.push_str(&overview::tail(runs));
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

/// One entry's line of the cell's Markdown table and its row of `leaderboard.csv`.
fn push_row(
    md: &mut String,
    csv: &mut LongCsv,
    run: &Run,
    e: &Entry,
    r: Option<CellRank>,
) -> anyhow::Result<()> {
    let note = note(e);
    let dagger = if e.few_trials() { " †" } else { "" };
    let vs = r.map_or("–".to_string(), |r| {
        let p = r.vs_best.p();
        if p.is_nan() {
            r.vs_best.name().to_string()
        } else {
            format!("{} ({})", r.vs_best.name(), num(p, 3))
        }
    });
    md.push_str(&format!(
        "| {} | {} | {} | {} | {}{dagger} | {} | {} | {vs} | {} |\n",
        md_cell(&e.learner),
        if e.relation.is_empty() {
            "–"
        } else {
            e.relation
        },
        e.guarantee(),
        accuracy(e),
        e.trials,
        certified(e),
        r.map_or("–".into(), |r| num(r.rank, 2)),
        md_cell(&note)
    ));
    csv.push(vec![
        Field::Text(run.stem.clone()),
        Field::Num(e.epsilon),
        Field::Text(e.learner.clone()),
        Field::Text(role_name(e.role).into()),
        Field::Text(e.relation.into()),
        Field::Text(e.guarantee().into()),
        Field::Num(e.mean),
        Field::Num(e.ci95),
        Field::Num(e.trials as f64),
        Field::Text(if e.few_trials() { "yes" } else { "no" }.into()),
        Field::Num(e.epsilon_certified),
        Field::Num(e.epsilon_add_remove.unwrap_or(f64::NAN)),
        Field::Num(r.map_or(f64::NAN, |r| r.rank)),
        Field::Text(r.map_or("", |r| r.vs_best.name()).into()),
        Field::Num(r.map_or(f64::NAN, |r| r.vs_best.p())),
        Field::Text(audit_words(e)),
        Field::Text(note),
    ])
}

/// An entry's audit in words, or "not audited".
fn audit_words(e: &Entry) -> String {
    e.audit
        .as_ref()
        .map_or_else(|| "not audited".into(), |a| a.words())
}

/// `# Audits`: every learner's audit (`dp-bench audit` folders beside the runs), or that
/// none is audited.
fn audits_section(runs: &[Run]) -> String {
    let mut rows: Vec<(&str, String)> = runs
        .iter()
        .flat_map(|r| &r.entries)
        .filter(|e| e.role != Role::Reference)
        .map(|e| (e.learner.as_str(), audit_words(e)))
        .collect();
    rows.sort();
    rows.dedup();
    let mut md = String::from(
        "\n# Audits\n\nA lower bound on each learner's ε measured by `dp-bench audit` on \
         neighbouring datasets (docs/audit.md), beside the ε certified from what it declares. \
         A learner whose measured bound exceeds its certificate is refuted and not ranked.\n\n\
         | learner | audit |\n|---|---|\n",
    );
    for (l, a) in rows {
        md.push_str(&format!("| {} | {} |\n", md_cell(l), md_cell(&a)));
    }
    md
}

/// One row per learner: its role, average ranks in both views, tuning gap and wall time.
fn learners_csv(runs: &[Run], o: &Overall) -> anyhow::Result<LongCsv> {
    let mut csv = LongCsv::new(&[
        "learner",
        "role",
        "relation",
        "average_rank",
        "average_rank_binary",
        "tuning_gap_mean",
        "tuning_gap_max",
        "tuning_gap_cells",
        "median_wall_ms",
        "audit",
    ]);
    let gaps = tuning_gaps(runs);
    let wall = super::rank::median_wall_ms(runs);
    let mut learners: Vec<(&str, &str, Role, &str, String)> = runs
        .iter()
        .flat_map(|r| &r.entries)
        .map(|e| {
            let audit = audit_words(e);
            (
                e.learner.as_str(),
                e.base.as_str(),
                e.role,
                e.relation,
                audit,
            )
        })
        .collect();
    learners.sort_by(|a, b| (a.2, a.0).cmp(&(b.2, b.0)));
    learners.dedup();
    let rank_in = |v: &super::rank::View, l: &str| {
        v.learners
            .iter()
            .find(|a| a.0 == l)
            .map_or(f64::NAN, |a| a.1)
    };
    for (l, base, role, relation, audit) in learners {
        let gap = gaps
            .iter()
            .find(|g| g.0 == base && matches!(role, Role::Ranked | Role::OffAxis));
        csv.push(vec![
            Field::Text(l.into()),
            Field::Text(role_name(role).into()),
            Field::Text(relation.into()),
            Field::Num(rank_in(&o.all, l)),
            Field::Num(rank_in(&o.binary, l)),
            Field::Num(gap.map_or(f64::NAN, |g| g.1)),
            Field::Num(gap.map_or(f64::NAN, |g| g.2)),
            Field::Num(gap.map_or(0.0, |g| g.3 as f64)),
            Field::Num(wall.get(l).copied().unwrap_or(f64::NAN)),
            Field::Text(audit),
        ])?;
    }
    Ok(csv)
}

/// The footnote of the † marker, under each table that has one.
pub fn dagger_note() -> String {
    format!("† fewer than {MIN_TRIALS} trials")
}
