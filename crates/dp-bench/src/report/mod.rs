//! `dp-bench report [RESULTS…] --out report/`: one static HTML page (no server, no network, no
//! script) with every paper's figures inlined as SVG, its tables (ours beside the paper's
//! values), and every run found under the results folders: summary (recomputed from the run's
//! checksummed cells), config, provenance and links to its CSV files, copied next to the page
//! so the folder can be moved or published.

pub mod folder;
pub mod html;

/// Moved to the experiment engine, which writes them; re-exported under their old paths.
pub use crate::experiment::{git, provenance};

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use self::html::{escape, inline_svg, markdown, page};
use self::provenance::Provenance;
use crate::experiment::shard::SHARDS_DIR;
use crate::experiment::{summary, verified};
use crate::figures::Outcome;
use crate::files::write_text_atomic;
use crate::papers::PAPERS;

/// What the report holds.
#[derive(Debug)]
pub struct ReportSummary {
    /// The page.
    pub index: PathBuf,
    /// Figures inlined.
    pub figures: usize,
    /// Tables shown.
    pub tables: usize,
    /// Runs listed.
    pub runs: usize,
}

/// Writes `out/index.html` (and the files it links to) from the results folders `roots`. The
/// folder then holds this report only: it is built beside `out` and swapped in
/// ([`folder::Staging`]); a folder holding files the report did not write is refused.
pub fn write_report(roots: &[PathBuf], out: &Path) -> anyhow::Result<ReportSummary> {
    let staging = folder::Staging::begin(out)?;
    let mut summary = build(roots, staging.dir())?;
    staging.commit()?;
    summary.index = out.join("index.html");
    Ok(summary)
}

/// The report written into the fresh folder `out`.
fn build(roots: &[PathBuf], out: &Path) -> anyhow::Result<ReportSummary> {
    let (mut body, mut nav) = (String::new(), Vec::new());
    let (mut figures, mut tables, mut runs) = (0, 0, 0);
    for p in PAPERS {
        let fig_dir = out.join("figures").join(p.id);
        let results = roots
            .iter()
            .map(|r| r.join(p.id))
            .find(|d| d.is_dir())
            .unwrap_or_else(|| roots[0].join(p.id));
        // One paper's unreadable results cost that paper's figures, not the page.
        let outcomes = (p.figures)(&fig_dir, &results).unwrap_or_else(|e| {
            errln!("warning: {}: {e:#}", p.title);
            vec![Outcome::Skipped(format!(
                "{} figures failed: {e:#}",
                p.title
            ))]
        });
        let anchor = format!("paper-{}", p.id);
        nav.push((anchor.clone(), p.title.to_string()));
        writeln!(
            body,
            "<section id=\"{anchor}\">\n<h2>{}</h2>",
            escape(p.title)
        )?;
        for o in &outcomes {
            if let Outcome::Skipped(why) = o {
                writeln!(body, "<p class=\"note\">{}</p>", escape(why))?;
            }
        }
        let (f, t) = paper_files(&fig_dir, out, &mut body)?;
        figures += f;
        tables += t;
        let mut paper_runs = run_dirs(&results);
        paper_runs.sort();
        if !paper_runs.is_empty() {
            writeln!(body, "<h3>Runs</h3>")?;
        }
        for dir in &paper_runs {
            run_article(dir, &results, &format!("runs/{}", p.id), out, &mut body)?;
            runs += 1;
        }
        body.push_str("</section>\n");
    }
    // Runs outside the papers' folders (your own configs).
    let paper_ids: Vec<&str> = PAPERS.iter().map(|p| p.id).collect();
    let mut own = Vec::new();
    for root in roots {
        for dir in run_dirs(root) {
            let top = dir
                .strip_prefix(root)
                .ok()
                .and_then(|r| r.components().next())
                .and_then(|c| c.as_os_str().to_str())
                .unwrap_or("");
            if !paper_ids.contains(&top) && top != "figures" {
                own.push((root.clone(), dir));
            }
        }
    }
    if !own.is_empty() {
        nav.push(("own-runs".into(), "Other runs".into()));
        body.push_str("<section id=\"own-runs\">\n<h2>Other runs</h2>\n");
        own.sort();
        for (root, dir) in &own {
            run_article(dir, root, "runs/other", out, &mut body)?;
            runs += 1;
        }
        body.push_str("</section>\n");
    }
    let here = Provenance::here("report", 0.0, "");
    let header = format!(
        "<dl><dt>dpbench</dt><dd>{}</dd><dt>generated</dt><dd>{} on {} ({})</dd>\
         <dt>results</dt><dd>{}</dd><dt>contents</dt><dd>{figures} figures, {tables} tables, \
         {runs} runs</dd></dl>\n",
        escape(&here.code()),
        escape(&here.finished),
        escape(&here.host),
        escape(&here.cpu),
        escape(
            &roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    let index = out.join("index.html");
    let text = page("dpbench report", &nav, &header, &body);
    write_text_atomic(&index, &text)?;
    Ok(ReportSummary {
        index,
        figures,
        tables,
        runs,
    })
}

/// Files of a folder with one of the extensions, sorted by name.
fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn rel(path: &Path, out: &Path) -> String {
    path.strip_prefix(out)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// A paper's figures (SVG inlined, with links to the PNG and CSV of the same stem) and its
/// Markdown tables; returns how many of each.
fn paper_files(fig_dir: &Path, out: &Path, body: &mut String) -> anyhow::Result<(usize, usize)> {
    let svgs = files_with(fig_dir, "svg");
    for svg in &svgs {
        let stem = svg.file_stem().and_then(|s| s.to_str()).unwrap_or("figure");
        let text = std::fs::read_to_string(svg)
            .with_context(|| format!("cannot read {}", svg.display()))?;
        let mut links = String::new();
        for ext in ["png", "csv"] {
            let f = svg.with_extension(ext);
            if f.exists() {
                write!(links, "<a href=\"{}\">{ext}</a>", escape(&rel(&f, out)))?;
            }
        }
        writeln!(
            body,
            "<figure id=\"{}\">{}<figcaption>{} <span class=\"links\">{links}</span></figcaption></figure>",
            escape(&format!("{}-{stem}", rel(fig_dir, out).replace('/', "-"))),
            inline_svg(&text, stem),
            escape(stem)
        )?;
    }
    let mds = files_with(fig_dir, "md");
    for md in &mds {
        let text = std::fs::read_to_string(md)?;
        let name = md.file_name().and_then(|s| s.to_str()).unwrap_or("");
        writeln!(
            body,
            "<div class=\"table\"><p class=\"links\"><a href=\"{}\">{}</a></p>\n{}</div>",
            escape(&rel(md, out)),
            escape(name),
            markdown(&text)
        )?;
    }
    let csvs: Vec<PathBuf> = files_with(fig_dir, "csv")
        .into_iter()
        .filter(|c| !c.with_extension("svg").exists())
        .collect();
    if !csvs.is_empty() {
        body.push_str("<p class=\"links\">Data: ");
        for c in &csvs {
            write!(
                body,
                "<a href=\"{}\">{}</a>",
                escape(&rel(c, out)),
                escape(&c.file_name().unwrap_or_default().to_string_lossy())
            )?;
        }
        body.push_str("</p>\n");
    }
    Ok((svgs.len(), mds.len()))
}

/// Folders at most two levels under `root` that hold a run (a `config.toml` copy or a study's
/// `study.json`), shards and figure folders excluded.
fn run_dirs(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let is_run = |d: &Path| d.join("config.toml").exists() || d.join("study.json").exists();
    let subdirs = |d: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(d)
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        p.is_dir()
                            && !p
                                .file_name()
                                .is_some_and(|n| n == SHARDS_DIR || n == "figures" || n == "slurm")
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    for a in subdirs(root) {
        if is_run(&a) {
            out.push(a);
            continue;
        }
        out.extend(subdirs(&a).into_iter().filter(|b| is_run(b)));
    }
    out
}

/// Why a run folder has no `provenance.json`, which dpbench writes when a run completes: a
/// journal still holding cells or a study checkpoint without it means the run did not finish
/// (killed, or still running); otherwise the folder says nothing about why.
fn missing_provenance(dir: &Path) -> &'static str {
    let journal_holds_cells = std::fs::metadata(dir.join(crate::experiment::journal::JOURNAL_FILE))
        .is_ok_and(|m| m.len() > 0);
    if journal_holds_cells || dir.join("points.jsonl").exists() {
        "no provenance.json: this run has not finished (it was interrupted, or is still \
         running); run its config again to finish it"
    } else {
        "no provenance.json (dpbench writes it when a run completes): the run was interrupted \
         before that, or is older than provenance records"
    }
}

/// One run: provenance, summary table, config, and its CSV files copied under `out/<into>/`.
fn run_article(
    dir: &Path,
    root: &Path,
    into: &str,
    out: &Path,
    body: &mut String,
) -> anyhow::Result<()> {
    let name = dir.strip_prefix(root).unwrap_or(dir).to_string_lossy();
    let copy_dir = out.join(into).join(name.as_ref());
    std::fs::create_dir_all(&copy_dir)?;
    writeln!(body, "<article>\n<h3>{}</h3>", escape(&name))?;
    if let Some(p) = Provenance::read(dir) {
        writeln!(
            body,
            "<table class=\"provenance\"><tbody>\
             <tr><th>dpbench</th><td>{}</td></tr>\
             <tr><th>machine</th><td>{}, {}</td></tr>\
             <tr><th>threads</th><td>{}</td></tr>\
             <tr><th>wall time</th><td>{:.1} s ({}), finished {}</td></tr>\
             <tr><th>dataset</th><td>{}</td></tr>{}</tbody></table>",
            escape(&p.code()),
            escape(&p.host),
            escape(&p.cpu),
            p.threads,
            p.wall_seconds,
            escape(&p.how),
            escape(&p.finished),
            escape(&dataset_line(&p.dataset)),
            p.stale_against(provenance::build_commit())
                .map_or(String::new(), |n| format!(
                    "<tr><th>stale?</th><td class=\"stale\">{}</td></tr>",
                    escape(&n)
                )),
        )?;
    } else {
        body.push_str(&format!(
            "<p class=\"note\">{}</p>\n",
            escape(missing_provenance(dir))
        ));
    }
    // A grid run's summary is shown as recomputed from its checksummed cells, never from
    // summary.md or summary.csv (derived files anyone can edit); one that differs from the
    // cells, or a folder without cells, gets a note instead, and its summary.csv is not copied.
    let verified = is_grid_run(dir).then(|| verified::load(dir));
    match &verified {
        Some(Ok(v)) => body.push_str(&markdown(&summary::markdown_table(&v.rows))),
        Some(Err(e)) => writeln!(
            body,
            "<p class=\"note\">summary not shown: {}</p>",
            escape(&format!("{e:#}"))
        )?,
        None => {}
    }
    let mut links = String::new();
    for csv in files_with(dir, "csv") {
        let file = csv.file_name().unwrap_or_default();
        if file == summary::CSV_FILE && matches!(verified, Some(Err(_))) {
            continue;
        }
        let to = copy_dir.join(file);
        std::fs::copy(&csv, &to)
            .with_context(|| format!("cannot copy {} to {}", csv.display(), to.display()))?;
        write!(
            links,
            "<a href=\"{}\">{}</a>",
            escape(&rel(&to, out)),
            escape(&file.to_string_lossy())
        )?;
    }
    if !links.is_empty() {
        writeln!(body, "<p class=\"links\">{links}</p>")?;
    }
    for cfg in ["config.toml", "study.json"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(cfg)) {
            writeln!(
                body,
                "<details><summary>{cfg}</summary><pre>{}</pre></details>",
                escape(&text)
            )?;
        }
    }
    body.push_str("</article>\n");
    Ok(())
}

/// Whether `dir` holds a grid run: its config copy declares no other kind of study (a
/// sequential study's folder has no cells to summarise).
fn is_grid_run(dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join("config.toml")) else {
        return false;
    };
    text.parse::<toml::Table>()
        .map(|t| t.get("study").is_none_or(|s| s.as_str() == Some("grid")))
        .unwrap_or(false)
}

fn dataset_line(d: &serde_json::Value) -> String {
    let name = d["name"].as_str().unwrap_or("?");
    let files: Vec<String> = d["raw_files"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| {
                    format!(
                        "{} sha256 {}",
                        f["file"].as_str().unwrap_or("?"),
                        f["sha256"].as_str().unwrap_or("?")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if files.is_empty() {
        format!("{name} (generated by dpbench's own code)")
    } else {
        format!("{name}: {}", files.join("; "))
    }
}
