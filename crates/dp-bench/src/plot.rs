//! Multi-panel line charts (optionally log-scaled, optionally with error bars) written as PNG
//! and SVG with `plotters`.
//!
//! Log axes are drawn by plotting log10 of the data on a linear axis with 10^v tick labels:
//! it keeps one code path for all four lin/log combinations. Legends get their own strip to
//! the right of each panel, so they never cover data.

use std::path::Path;
use std::sync::Once;

use anyhow::Context;
use plotters::coord::Shift;
use plotters::prelude::*;

pub mod heatmap;

/// One line of a panel.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// (x, y) points in data units, drawn in the given order.
    pub points: Vec<(f64, f64)>,
    /// Optional half-widths of vertical error bars, one per point.
    pub err: Option<Vec<f64>>,
    /// Draw the line dashed (e.g. reference or lower-bound curves).
    pub dashed: bool,
    /// Draw unconnected small dots instead of a line (e.g. every evaluated point).
    pub dots: bool,
    /// A staircase (a Pareto front): its corners are not points, so never mark them.
    pub steps: bool,
}

impl Series {
    /// Unconnected small dots.
    pub fn dots(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            dots: true,
            ..Series::line(name, points)
        }
    }

    /// A staircase through `points` (already expanded to its corners), never marked.
    pub fn steps(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            steps: true,
            ..Series::line(name, points)
        }
    }

    /// A solid line without error bars.
    pub fn line(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.into(),
            points,
            err: None,
            dashed: false,
            dots: false,
            steps: false,
        }
    }
}

/// One chart with axes, title and legend.
#[derive(Clone, Debug)]
pub struct Panel {
    /// Panel title (names the parameters).
    pub title: String,
    /// X-axis label with units.
    pub x_label: String,
    /// Y-axis label with units.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// Lines.
    pub series: Vec<Series>,
    /// Fixed y range in data units (else fitted to the data).
    pub y_range: Option<(f64, f64)>,
}

/// A figure: a grid of panels under one title.
#[derive(Clone, Debug)]
pub struct Figure {
    /// Overall title.
    pub title: String,
    /// Panels, row by row.
    pub panels: Vec<Panel>,
    /// Panels per row.
    pub columns: usize,
}

const PANEL_W: u32 = 760;
const PANEL_H: u32 = 480;
const TITLE_H: u32 = 50;
const LEGEND_W: u32 = 250;

/// Okabe–Ito's colour-blind-safe seven, then five darker hues: the benchmark's figures draw a
/// dozen learners, and a colour repeated within one panel makes two of them one line.
const PALETTE: [RGBColor; 12] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 86, 86),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(153, 0, 0),
    RGBColor(117, 112, 179),
    RGBColor(128, 128, 0),
    RGBColor(0, 90, 90),
    RGBColor(140, 86, 75),
];

fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Embedded DejaVu: rendering text needs no system fonts or fontconfig.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
        let _ = plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
    });
}

impl Figure {
    /// Writes `<stem>.png` and `<stem>.svg`, each atomically.
    pub fn save(&self, stem: &Path) -> anyhow::Result<()> {
        save_drawing(self, stem)
    }
}

/// Something drawn on one canvas: a [`Figure`] or a [`heatmap::Mosaic`].
pub trait Drawing {
    /// Canvas size in pixels.
    fn size(&self) -> (u32, u32);
    /// Draws onto `root`.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>;
}

/// Writes `<stem>.png` and `<stem>.svg` of `d`, each atomically.
pub fn save_drawing<D: Drawing>(d: &D, stem: &Path) -> anyhow::Result<()> {
    register_fonts();
    let size = d.size();
    let dir = stem.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = stem
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or("figure");

    let tmp_png = dir.join(format!(".{name}.{}.tmp.png", std::process::id()));
    {
        let root = BitMapBackend::new(&tmp_png, size).into_drawing_area();
        d.draw(&root)?;
        root.present()
            .map_err(|e| anyhow::anyhow!("cannot render PNG: {e}"))?;
    }
    std::fs::rename(&tmp_png, stem.with_extension("png"))
        .with_context(|| format!("cannot write {}", stem.with_extension("png").display()))?;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        d.draw(&root)?;
        root.present()
            .map_err(|e| anyhow::anyhow!("cannot render SVG: {e}"))?;
    }
    crate::files::write_text_atomic(&stem.with_extension("svg"), &svg)
}

/// Draws the figure title into a strip of height [`TITLE_H`] and returns the area below.
fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
) -> anyhow::Result<DrawingArea<DB, Shift>> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("drawing failed: {e:?}");
    root.fill(&WHITE).map_err(err)?;
    let (title_area, body) = root.split_vertically(TITLE_H);
    title_area
        .titled(title, ("sans-serif", 26).into_font().style(FontStyle::Bold))
        .map_err(err)?;
    Ok(body)
}

impl Drawing for Figure {
    fn size(&self) -> (u32, u32) {
        let cols = self.columns.max(1).min(self.panels.len().max(1));
        let rows = self.panels.len().div_ceil(cols).max(1);
        (
            cols as u32 * (PANEL_W + LEGEND_W),
            rows as u32 * PANEL_H + TITLE_H,
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()> {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("drawing failed: {e:?}");
        let body = titled(root, &self.title)?;
        let cols = self.columns.max(1).min(self.panels.len().max(1));
        let rows = self.panels.len().div_ceil(cols).max(1);
        let cells = body.split_evenly((rows, cols));
        for (panel, area) in self.panels.iter().zip(cells.iter()) {
            let (plot_area, legend_area) = area.split_horizontally(PANEL_W);
            draw_panel(panel, &plot_area).map_err(err)?;
            draw_legend(panel, &legend_area).map_err(err)?;
        }
        Ok(())
    }
}

fn tx(v: f64, log: bool) -> f64 {
    if log { v.log10() } else { v }
}

/// Tick label for an axis; on log axes `v` is log10 of the value.
fn tick_label(v: f64, log: bool) -> String {
    let x = if log { 10f64.powf(v) } else { v };
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if log && (v - v.round()).abs() > 1e-9 {
        // Between decades: two significant digits are enough to read a log axis.
        let mag = 10f64.powf(a.log10().floor() - 1.0);
        let r = (x / mag).round() * mag;
        return format_plain(r);
    }
    format_plain(x)
}

fn format_plain(x: f64) -> String {
    if !(1e-3..1e4).contains(&x.abs()) {
        format!("{x:.0e}")
    } else {
        let s = format!("{x:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        return (lo - 0.5, hi + 0.5);
    }
    let pad = 0.04 * (hi - lo);
    (lo - pad, hi + pad)
}

fn style_of(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn draw_panel<DB: DrawingBackend>(
    p: &Panel,
    area: &DrawingArea<DB, Shift>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pts = |s: &Series| -> Vec<(f64, f64, f64)> {
        s.points
            .iter()
            .enumerate()
            .map(|(i, &(x, y))| {
                let e = s.err.as_ref().map_or(0.0, |e| e[i]);
                (x, y, e)
            })
            .filter(|&(x, y, _)| {
                (!p.log_x || x > 0.0) && (!p.log_y || y > 0.0) && x.is_finite() && y.is_finite()
            })
            .collect()
    };
    let all: Vec<(f64, f64, f64)> = p.series.iter().flat_map(pts).collect();
    let (x0, x1) = bounds(all.iter().map(|a| tx(a.0, p.log_x)));
    let (y0, y1) = match p.y_range {
        Some((a, b)) => (tx(a, p.log_y), tx(b, p.log_y)),
        None => bounds(all.iter().flat_map(|a| {
            let lo = if p.log_y { a.1 } else { a.1 - a.2 };
            [tx(lo, p.log_y), tx(a.1 + a.2, p.log_y)]
        })),
    };
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let (lx, ly) = (p.log_x, p.log_y);
    chart
        .configure_mesh()
        .x_desc(&p.x_label)
        .y_desc(&p.y_label)
        .axis_desc_style(("sans-serif", 17))
        .label_style(("sans-serif", 14))
        .x_labels(8)
        .y_labels(8)
        .x_label_formatter(&|v| tick_label(*v, lx))
        .y_label_formatter(&|v| tick_label(*v, ly))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .draw()?;
    for (i, s) in p.series.iter().enumerate() {
        // An empty series draws nothing but keeps its colour slot, so a method keeps its
        // colour in every panel of a figure.
        if s.points.is_empty() {
            continue;
        }
        let color = style_of(i);
        let data: Vec<(f64, f64)> = pts(s)
            .iter()
            .map(|&(x, y, _)| (tx(x, lx), tx(y, ly)))
            .collect();
        if s.dots {
            chart.draw_series(
                data.iter()
                    .map(|&(x, y)| Circle::new((x, y), 2, color.mix(0.6).filled())),
            )?;
            continue;
        }
        if s.dashed {
            chart.draw_series(DashedLineSeries::new(
                data.clone(),
                8,
                5,
                color.stroke_width(2),
            ))?;
        } else {
            chart.draw_series(LineSeries::new(data.clone(), color.stroke_width(2)))?;
        }
        if data.len() <= 40 && !s.steps {
            chart.draw_series(
                data.iter()
                    .map(|&(x, y)| Circle::new((x, y), 4, color.filled())),
            )?;
        }
        if s.err.is_some() {
            chart.draw_series(pts(s).iter().map(|&(x, y, e)| {
                ErrorBar::new_vertical(
                    tx(x, lx),
                    tx(y - e, ly),
                    tx(y, ly),
                    tx(y + e, ly),
                    color.stroke_width(2),
                    10,
                )
            }))?;
        }
    }
    Ok(())
}

fn draw_legend<DB: DrawingBackend>(
    p: &Panel,
    area: &DrawingArea<DB, Shift>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = ("sans-serif", 15).into_font();
    let mut y = 60;
    for (i, s) in p.series.iter().enumerate() {
        // An empty series draws nothing but keeps its colour slot, so a method keeps its
        // colour in every panel of a figure.
        if s.points.is_empty() {
            continue;
        }
        let color = style_of(i);
        if s.dots {
            area.draw(&Circle::new((17, y), 4, color.filled()))?;
        } else if s.dashed {
            area.draw(&PathElement::new(
                vec![(4, y), (14, y)],
                color.stroke_width(3),
            ))?;
            area.draw(&PathElement::new(
                vec![(20, y), (30, y)],
                color.stroke_width(3),
            ))?;
        } else {
            area.draw(&PathElement::new(
                vec![(4, y), (30, y)],
                color.stroke_width(3),
            ))?;
        }
        // A name may span lines ('\n'), e.g. a method and whether its privacy is certified.
        let lines: Vec<&str> = s.name.lines().collect();
        for (j, line) in lines.iter().enumerate() {
            let top = y - 8 + 18 * j as i32;
            area.draw(&Text::new(line.to_string(), (38, top), font.clone()))?;
        }
        y += 28 + 18 * lines.len().saturating_sub(1) as i32;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_png_and_svg() {
        let dir = tempfile::tempdir().unwrap();
        let fig = Figure {
            title: "test".into(),
            columns: 2,
            panels: vec![
                Panel {
                    title: "a".into(),
                    x_label: "ε".into(),
                    y_label: "accuracy (%)".into(),
                    log_x: true,
                    log_y: false,
                    series: vec![Series {
                        name: "m".into(),
                        points: vec![(0.1, 80.0), (1.0, 83.0)],
                        err: Some(vec![0.5, 0.2]),
                        dashed: false,
                        dots: false,
                        steps: false,
                    }],
                    y_range: None,
                },
                Panel {
                    title: "b".into(),
                    x_label: "x".into(),
                    y_label: "δ".into(),
                    log_x: false,
                    log_y: true,
                    series: vec![Series::line("l", vec![(0.0, 1e-3), (1.0, 1e-6)])],
                    y_range: None,
                },
            ],
        };
        fig.save(&dir.path().join("f")).unwrap();
        if let Ok(keep) = std::env::var("DPBENCH_KEEP_TEST_PLOT") {
            std::fs::copy(dir.path().join("f.png"), keep).unwrap();
        }
        assert!(std::fs::metadata(dir.path().join("f.png")).unwrap().len() > 1000);
        let svg = std::fs::read_to_string(dir.path().join("f.svg")).unwrap();
        assert!(svg.contains("<svg"));
    }

    #[test]
    fn tick_labels_are_readable() {
        assert_eq!(tick_label(-2.0, true), "0.01");
        assert_eq!(tick_label(0.0, true), "1");
        assert_eq!(tick_label(-6.0, true), "1e-6");
        assert_eq!(tick_label(2.5, false), "2.5");
        assert_eq!(tick_label(0.158_489_319f64.log10(), true), "0.16");
    }
}
