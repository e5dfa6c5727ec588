//! Heat maps of a function over a 2-D grid (viridis, optionally log-coloured, with a colour
//! bar, marker dots and a star), and mosaics mixing them with line panels on one canvas.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::colors::colormaps::{ColorMap, ViridisRGB};

use super::{
    Drawing, LEGEND_W, PANEL_H, PANEL_W, Panel, draw_legend, draw_panel, save_drawing, tick_label,
    titled, tx,
};

/// Values on a grid of cell centres.
#[derive(Clone, Debug)]
pub struct Heatmap {
    /// Panel title.
    pub title: String,
    /// X-axis label.
    pub x_label: String,
    /// Y-axis label.
    pub y_label: String,
    /// Logarithmic x axis (cell centres are then geometric).
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// Cell centres along x, increasing.
    pub xs: Vec<f64>,
    /// Cell centres along y, increasing.
    pub ys: Vec<f64>,
    /// `values[j * xs.len() + i]` at `(xs[i], ys[j])`.
    pub values: Vec<f64>,
    /// Colour by log10 of the value.
    pub log_color: bool,
    /// What the colour shows (the colour bar's label).
    pub color_label: String,
    /// Points drawn as white dots (e.g. evaluated inputs).
    pub markers: Vec<(f64, f64)>,
    /// One point drawn as a red star (e.g. the next proposal).
    pub star: Option<(f64, f64)>,
}

/// One cell of a [`Mosaic`].
#[derive(Clone, Debug)]
pub enum Cell {
    /// A line/dot chart with its legend.
    Lines(Panel),
    /// A heat map with its colour bar.
    Heat(Heatmap),
}

/// A grid of line panels and heat maps under one title.
#[derive(Clone, Debug)]
pub struct Mosaic {
    /// Overall title.
    pub title: String,
    /// Cells, row by row.
    pub cells: Vec<Cell>,
    /// Cells per row.
    pub columns: usize,
}

impl Mosaic {
    /// Writes `<stem>.png` and `<stem>.svg`, each atomically.
    pub fn save(&self, stem: &Path) -> anyhow::Result<()> {
        save_drawing(self, stem)
    }
}

impl Drawing for Mosaic {
    fn size(&self) -> (u32, u32) {
        let cols = self.columns.max(1).min(self.cells.len().max(1));
        let rows = self.cells.len().div_ceil(cols).max(1);
        (
            cols as u32 * (PANEL_W + LEGEND_W),
            rows as u32 * PANEL_H + super::TITLE_H,
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()> {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("drawing failed: {e:?}");
        let body = titled(root, &self.title)?;
        let cols = self.columns.max(1).min(self.cells.len().max(1));
        let rows = self.cells.len().div_ceil(cols).max(1);
        let areas = body.split_evenly((rows, cols));
        for (cell, area) in self.cells.iter().zip(areas.iter()) {
            let (plot_area, side) = area.split_horizontally(PANEL_W);
            match cell {
                Cell::Lines(p) => {
                    draw_panel(p, &plot_area).map_err(err)?;
                    draw_legend(p, &side).map_err(err)?;
                }
                Cell::Heat(h) => {
                    let range = h.color_range();
                    draw_heat(h, range, &plot_area).map_err(err)?;
                    draw_color_bar(h, range, &side).map_err(err)?;
                }
            }
        }
        Ok(())
    }
}

/// Cell edges in plot coordinates: midpoints between centres, the ends mirrored.
fn edges(centres: &[f64], log: bool) -> Vec<f64> {
    let c: Vec<f64> = centres.iter().map(|&v| tx(v, log)).collect();
    let n = c.len();
    if n == 1 {
        return vec![c[0] - 0.5, c[0] + 0.5];
    }
    let mut e = Vec::with_capacity(n + 1);
    e.push(c[0] - (c[1] - c[0]) / 2.0);
    e.extend(c.windows(2).map(|w| (w[0] + w[1]) / 2.0));
    e.push(c[n - 1] + (c[n - 1] - c[n - 2]) / 2.0);
    e
}

impl Heatmap {
    fn shade(&self, v: f64) -> f64 {
        if self.log_color { v.log10() } else { v }
    }

    /// (low, high) of the shaded finite values.
    fn color_range(&self) -> (f64, f64) {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in self
            .values
            .iter()
            .map(|&v| self.shade(v))
            .filter(|v| v.is_finite())
        {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            (0.0, 1.0)
        } else if hi - lo < 1e-12 {
            (lo - 0.5, hi + 0.5)
        } else {
            (lo, hi)
        }
    }
}

fn viridis(v: f64, (lo, hi): (f64, f64)) -> RGBColor {
    if !v.is_finite() {
        return RGBColor(200, 200, 200);
    }
    ViridisRGB.get_color_normalized(v.clamp(lo, hi), lo, hi)
}

fn draw_heat<DB: DrawingBackend>(
    h: &Heatmap,
    range: (f64, f64),
    area: &DrawingArea<DB, Shift>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (ex, ey) = (edges(&h.xs, h.log_x), edges(&h.ys, h.log_y));
    let (x0, x1) = (ex[0], ex[ex.len() - 1]);
    let (y0, y1) = (ey[0], ey[ey.len() - 1]);
    let mut chart = ChartBuilder::on(area)
        .caption(&h.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let (lx, ly) = (h.log_x, h.log_y);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(&h.x_label)
        .y_desc(&h.y_label)
        .axis_desc_style(("sans-serif", 17))
        .label_style(("sans-serif", 14))
        .x_labels(8)
        .y_labels(8)
        .x_label_formatter(&|v| tick_label(*v, lx))
        .y_label_formatter(&|v| tick_label(*v, ly))
        .draw()?;
    let nx = h.xs.len();
    chart.draw_series(h.values.iter().enumerate().map(|(k, &v)| {
        let (i, j) = (k % nx, k / nx);
        Rectangle::new(
            [(ex[i], ey[j]), (ex[i + 1], ey[j + 1])],
            viridis(h.shade(v), range).filled(),
        )
    }))?;
    chart.draw_series(
        h.markers
            .iter()
            .map(|&(x, y)| Circle::new((tx(x, lx), tx(y, ly)), 2, WHITE.mix(0.85).filled())),
    )?;
    if let Some((x, y)) = h.star {
        let at = (tx(x, lx), tx(y, ly));
        chart.draw_series([TriangleMarker::new(at, 9, RED.filled())])?;
        chart.draw_series([Cross::new(at, 9, RED.stroke_width(3))])?;
    }
    Ok(())
}

fn draw_color_bar<DB: DrawingBackend>(
    h: &Heatmap,
    (lo, hi): (f64, f64),
    area: &DrawingArea<DB, Shift>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (top, bottom, left, width) = (60i32, PANEL_H as i32 - 70, 12i32, 22i32);
    let steps = 100;
    for s in 0..steps {
        let f = s as f64 / (steps - 1) as f64;
        let y = bottom - ((bottom - top) as f64 * f) as i32;
        let color = viridis(lo + f * (hi - lo), (lo, hi));
        area.draw(&Rectangle::new(
            [(left, y - 3), (left + width, y + 1)],
            color.filled(),
        ))?;
    }
    let font = ("sans-serif", 14).into_font();
    for s in 0..=4 {
        let f = s as f64 / 4.0;
        let v = lo + f * (hi - lo);
        let y = bottom - ((bottom - top) as f64 * f) as i32;
        let label = tick_label(v, h.log_color);
        area.draw(&Text::new(label, (left + width + 6, y - 7), font.clone()))?;
    }
    area.draw(&Text::new(
        h.color_label.clone(),
        (left, top - 30),
        ("sans-serif", 15).into_font(),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_bracket_the_centres() {
        assert_eq!(edges(&[1.0, 2.0, 4.0], false), vec![0.5, 1.5, 3.0, 5.0]);
        let e = edges(&[0.01, 0.1, 1.0], true);
        assert!((e[0] + 2.5).abs() < 1e-12 && (e[3] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_mosaic_writes_png_and_svg() {
        let dir = tempfile::tempdir().unwrap();
        let heat = Heatmap {
            title: "h".into(),
            x_label: "γ".into(),
            y_label: "σ".into(),
            log_x: true,
            log_y: false,
            xs: vec![0.01, 0.1, 1.0],
            ys: vec![1.0, 2.0],
            values: vec![1.0, 10.0, 100.0, 2.0, 20.0, f64::NAN],
            log_color: true,
            color_label: "ε".into(),
            markers: vec![(0.1, 1.5)],
            star: Some((0.5, 2.0)),
        };
        let m = Mosaic {
            title: "t".into(),
            cells: vec![Cell::Heat(heat)],
            columns: 1,
        };
        m.save(&dir.path().join("m")).unwrap();
        assert!(std::fs::metadata(dir.path().join("m.png")).unwrap().len() > 1000);
    }
}
