//! `<stem>.png` per run: test accuracy (mean ± 95 % Student-t interval) against ε for every
//! learner of one dataset. Ranked learners are solid, and an honest learner certified under
//! another relation than the ranking one is dashed beside them; a dishonest (best of grid,
//! tuning not paid) entry is
//! dashed, the "tuning for free" reference, as is a learner whose ε nothing certifies (drawn
//! at every ε it has an accuracy); a non-private reference is a horizontal dashed line. Cells
//! that are not results at their ε (over budget, no accuracy) are not drawn.

use std::path::{Path, PathBuf};

use super::load::{Entry, Role, Run};
use crate::figures::csv::{Field, LongCsv};
use crate::figures::save;
use crate::plot::{Figure, Panel, Series};

/// Characters that fit on one line of the legend strip.
const LEGEND_CHARS: usize = 28;

/// `text` broken at spaces into lines of at most [`LEGEND_CHARS`] (a longer word stays whole).
fn wrap(text: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= LEGEND_CHARS => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines.join("\n")
}

/// The legend text of a learner (the legend strip is narrow: one clause per line).
fn legend(e: &Entry, dropped: usize) -> String {
    // The panel's title says the role, so the name is the base learner alone.
    let mut name = match e.role {
        Role::Reference | Role::Refused => wrap(&e.learner),
        Role::Refuted => wrap(&format!("{} (refuted by audit)", e.base)),
        Role::Ranked | Role::Dishonest => wrap(&e.base),
        // Dashed, as the panel's title says: the relation alone tells why.
        Role::OffAxis => wrap(&format!("{} ({})", e.base, e.relation)),
    };
    if dropped > 0 {
        name.push_str(&format!("\n(not drawn at {dropped} ε)"));
    }
    name
}

/// The references panel's title: what is drawn there and why none of it is ranked.
fn references_title(run: &Run) -> String {
    let has = |r: Role| run.entries.iter().any(|e| e.role == r);
    let mut parts = vec!["best of grid (tuning not paid)"];
    if has(Role::Refused) {
        parts.push("ε not certified");
    }
    if has(Role::Refuted) {
        parts.push("refuted by audit");
    }
    parts.push("non-private");
    format!("references, not ranked: {}", parts.join(", "))
}

/// Writes `<stem>.png`, `.svg` and `.csv` for `run`; `order` lists every learner of the
/// leaderboard so that a learner has one colour in every dataset's figure.
pub fn write(out: &Path, run: &Run, order: &[String]) -> anyhow::Result<Vec<PathBuf>> {
    let mut data = LongCsv::new(&[
        "learner",
        "role",
        "epsilon",
        "mean_accuracy",
        "ci95_t",
        "drawn",
    ]);
    let (lo, hi) = (
        run.epsilons.first().copied().unwrap_or(0.1),
        run.epsilons.last().copied().unwrap_or(1.0),
    );
    // One colour per base learner (kind and calibration) in both panels and every dataset's
    // figure, so that a learner's honest curve and its best-of-grid reference match.
    let mut bases: Vec<&str> = Vec::new();
    for learner in order {
        if let Some(e) = run.entries.iter().find(|e| &e.learner == learner)
            && !bases.contains(&e.base.as_str())
        {
            bases.push(&e.base);
        }
    }
    let empty = |name: &str| Series::line(name.to_string(), Vec::new());
    let mut ranked: Vec<Series> = bases.iter().map(|b| empty(b)).collect();
    let mut references: Vec<Series> = bases.iter().map(|b| empty(b)).collect();
    for learner in order {
        let mut mine: Vec<&Entry> = run
            .entries
            .iter()
            .filter(|e| &e.learner == learner)
            .collect();
        mine.sort_by(|a, b| a.epsilon.total_cmp(&b.epsilon));
        let Some(first) = mine.first() else {
            continue;
        };
        let drawn: Vec<&&Entry> =
            if matches!(first.role, Role::Reference | Role::Refused | Role::Refuted) {
                mine.iter().filter(|e| e.mean.is_finite()).collect()
            } else {
                mine.iter()
                    .filter(|e| e.unranked_reason().is_none())
                    .collect()
            };
        for e in &mine {
            let is_drawn = drawn.iter().any(|d| std::ptr::eq(**d, *e));
            data.push(vec![
                Field::Text(e.learner.clone()),
                Field::Text(format!("{:?}", e.role).to_lowercase()),
                Field::Num(e.epsilon),
                Field::Num(e.mean),
                Field::Num(e.ci95),
                Field::Text(if is_drawn { "yes" } else { "no" }.into()),
            ])?;
        }
        let name = legend(first, mine.len() - drawn.len());
        let s = if first.role == Role::Reference {
            // One run at the first ε (or the same model at every ε): a level, not a curve.
            let level = drawn.iter().map(|e| e.mean).sum::<f64>() / drawn.len().max(1) as f64;
            let points = if drawn.is_empty() {
                Vec::new()
            } else {
                vec![(lo, level), (hi, level)]
            };
            Series {
                dashed: true,
                ..Series::line(name, points)
            }
        } else {
            Series {
                err: Some(
                    drawn
                        .iter()
                        .map(|e| if e.ci95.is_finite() { e.ci95 } else { 0.0 })
                        .collect(),
                ),
                dashed: first.role != Role::Ranked,
                ..Series::line(name, drawn.iter().map(|e| (e.epsilon, e.mean)).collect())
            }
        };
        let slot = bases
            .iter()
            .position(|b| *b == first.base)
            .expect("collected above");
        match first.role {
            Role::Ranked | Role::OffAxis => ranked[slot] = s,
            Role::Dishonest | Role::Refused | Role::Refuted | Role::Reference => {
                references[slot] = s
            }
        }
    }
    // The same y range in both panels, so the references read against the ranked curves.
    let ys = ranked
        .iter()
        .chain(&references)
        .flat_map(|s| s.points.iter().map(|p| p.1));
    let (ymin, ymax) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
        (a.min(y), b.max(y))
    });
    let y_range = (ymin.is_finite() && ymax > ymin).then(|| {
        let pad = 0.05 * (ymax - ymin);
        (ymin - pad, ymax + pad)
    });
    let panel = |title: &str, series: Vec<Series>| Panel {
        title: title.into(),
        x_label: "ε (log)".into(),
        y_label: "test accuracy (%)".into(),
        log_x: true,
        log_y: false,
        series,
        y_range,
    };
    let figure = Figure {
        title: format!("{} ({}): test accuracy against ε", run.stem, run.dataset),
        panels: vec![
            panel(
                "ranked (mean ± 95 % t); dashed: another relation, not ranked",
                ranked,
            ),
            panel(&references_title(run), references),
        ],
        columns: 2,
    };
    save(out, &run.stem, &figure, &data)
}
