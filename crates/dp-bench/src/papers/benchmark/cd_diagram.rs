//! The critical-difference diagram (Demšar 2006, Fig. 1; orange3's `graph_ranks`): a rank
//! axis 1…k with the best on the right, each learner ticked at its mean rank and named at the
//! side it is nearer to, a bar as long as the Nemenyi CD, and thick lines joining each maximal
//! group of learners whose pairwise gaps are all below the CD.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::stats::cd_groups;
use crate::plot::Drawing;

/// A CD diagram of learners at their mean ranks.
#[derive(Clone, Debug)]
pub struct CdDiagram {
    /// Title line.
    pub title: String,
    /// Second line (the test and its verdict).
    pub subtitle: String,
    /// (learner, mean rank), in any order.
    pub learners: Vec<(String, f64)>,
    /// The critical difference in rank units.
    pub cd: f64,
}

const W: u32 = 1400;
/// Room for names on either side of the axis.
const SIDE: i32 = 440;
const AXIS_Y: i32 = 150;
const ROW: i32 = 30;

impl CdDiagram {
    fn sorted(&self) -> Vec<(String, f64)> {
        let mut s = self.learners.clone();
        s.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        s
    }

    fn k(&self) -> usize {
        self.learners.len().max(2)
    }

    /// Pixel x of a rank: rank k at the left end of the axis, rank 1 at the right.
    fn x(&self, rank: f64) -> i32 {
        let (l, r) = (SIDE, W as i32 - SIDE);
        let k = self.k() as f64;
        l + ((k - rank) / (k - 1.0) * (r - l) as f64).round() as i32
    }

    fn groups_top(&self) -> i32 {
        AXIS_Y + 18
    }

    fn names_top(&self) -> i32 {
        let sorted: Vec<f64> = self.sorted().iter().map(|l| l.1).collect();
        self.groups_top() + 12 * cd_groups(&sorted, self.cd).len() as i32 + 24
    }
}

impl Drawing for CdDiagram {
    fn size(&self) -> (u32, u32) {
        let per_side = self.learners.len().div_ceil(2) as i32;
        (W, (self.names_top() + per_side * ROW + 20) as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()> {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("drawing failed: {e:?}");
        root.fill(&WHITE).map_err(err)?;
        let black = BLACK.stroke_width(1);
        let centre = Pos::new(HPos::Center, VPos::Center);
        let text = |size: u32, pos: Pos| {
            TextStyle::from(("sans-serif", size).into_font())
                .pos(pos)
                .color(&BLACK)
        };
        let mid = W as i32 / 2;
        root.draw(&Text::new(
            self.title.clone(),
            (mid, 22),
            ("sans-serif", 22)
                .into_font()
                .style(FontStyle::Bold)
                .color(&BLACK)
                .pos(centre),
        ))
        .map_err(err)?;
        root.draw(&Text::new(
            self.subtitle.clone(),
            (mid, 50),
            text(15, centre),
        ))
        .map_err(err)?;
        // The axis with a tick and label at every whole rank, small ticks at the halves.
        let k = self.k();
        let (l, r) = (self.x(k as f64), self.x(1.0));
        root.draw(&PathElement::new(vec![(l, AXIS_Y), (r, AXIS_Y)], black))
            .map_err(err)?;
        for i in 1..=k {
            let x = self.x(i as f64);
            root.draw(&PathElement::new(
                vec![(x, AXIS_Y - 10), (x, AXIS_Y)],
                black,
            ))
            .map_err(err)?;
            root.draw(&Text::new(
                i.to_string(),
                (x, AXIS_Y - 20),
                text(15, Pos::new(HPos::Center, VPos::Bottom)),
            ))
            .map_err(err)?;
            if i < k {
                let h = self.x(i as f64 + 0.5);
                root.draw(&PathElement::new(vec![(h, AXIS_Y - 5), (h, AXIS_Y)], black))
                    .map_err(err)?;
            }
        }
        // The CD bar above the left end of the axis (clamped to the axis if longer).
        let cd_end = self.x((k as f64 - self.cd).max(1.0));
        let bar_y = AXIS_Y - 62;
        root.draw(&PathElement::new(
            vec![(l, bar_y), (cd_end, bar_y)],
            BLACK.stroke_width(2),
        ))
        .map_err(err)?;
        for x in [l, cd_end] {
            root.draw(&PathElement::new(
                vec![(x, bar_y - 5), (x, bar_y + 5)],
                black,
            ))
            .map_err(err)?;
        }
        root.draw(&Text::new(
            format!("CD = {:.2}", self.cd),
            ((l + cd_end) / 2, bar_y - 8),
            text(15, Pos::new(HPos::Center, VPos::Bottom)),
        ))
        .map_err(err)?;
        // The learners: best half named on the right, the rest on the left, each a line from
        // its rank down to its row and out to its name.
        let sorted = self.sorted();
        let right = sorted.len().div_ceil(2);
        let top = self.names_top();
        for (i, (name, rank)) in sorted.iter().enumerate() {
            let x = self.x(*rank);
            let (row, end, pos) = if i < right {
                (i, W as i32 - SIDE + 20, Pos::new(HPos::Left, VPos::Center))
            } else {
                (
                    sorted.len() - 1 - i,
                    SIDE - 20,
                    Pos::new(HPos::Right, VPos::Center),
                )
            };
            let y = top + row as i32 * ROW;
            root.draw(&PathElement::new(
                vec![(x, AXIS_Y), (x, y), (end, y)],
                black,
            ))
            .map_err(err)?;
            let label = if i < right {
                format!("({rank:.2}) {name}")
            } else {
                format!("{name} ({rank:.2})")
            };
            let tx = if i < right { end + 6 } else { end - 6 };
            root.draw(&Text::new(label, (tx, y), text(15, pos)))
                .map_err(err)?;
        }
        // Groups not shown to differ: thick bars under the axis, one row each.
        let ranks: Vec<f64> = sorted.iter().map(|s| s.1).collect();
        for (g, (a, b)) in cd_groups(&ranks, self.cd).into_iter().enumerate() {
            let y = self.groups_top() + 12 * g as i32;
            root.draw(&PathElement::new(
                vec![(self.x(ranks[a]) + 4, y), (self.x(ranks[b]) - 4, y)],
                BLACK.stroke_width(5),
            ))
            .map_err(err)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// Nine learners, long names on both sides, six overlapping groups: the picture has room for all.
    #[test]
    fn benchmark_cd_diagram_fits_nine_learners_and_their_groups() {
        let names = [
            "alg1 (certified)",
            "external diffprivlib_logreg (declared)",
            "amp (certified), honest",
            "amp_hf (certified), honest",
            "dpsgd (certified), honest",
            "psgd (certified), honest",
            "ppsgd (certified), honest",
            "pscpsgd (certified), honest",
            "external numpy_dpsgd (declared)",
        ];
        let ranks = [1.4, 2.1, 2.9, 3.6, 5.0, 5.5, 6.8, 8.1, 8.6];
        let d = CdDiagram {
            title: "t".into(),
            subtitle: "s".into(),
            learners: names
                .iter()
                .zip(ranks)
                .map(|(n, r)| (n.to_string(), r))
                .collect(),
            cd: 2.2,
        };
        assert_eq!(cd_groups(&ranks, 2.2).len(), 6);
        let (w, h) = d.size();
        assert!(d.names_top() + 5 * ROW < h as i32 && w == W);
        let dir = tempfile::tempdir().unwrap();
        crate::plot::save_drawing(&d, &dir.path().join("cd")).unwrap();
        assert!(std::fs::metadata(dir.path().join("cd.png")).unwrap().len() > 1000);
        if let Ok(keep) = std::env::var("DPBENCH_KEEP_BENCHMARK") {
            std::fs::copy(dir.path().join("cd.png"), Path::new(&keep).join("cd9.png")).unwrap();
        }
    }
}
