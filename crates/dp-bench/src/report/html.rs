//! The pieces of the report page: escaping, Markdown tables as HTML tables, SVG figures
//! inlined so the page needs no other file to show them, and the page's frame and style.

use std::fmt::Write as _;

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

pub use crate::quoting::md_cell;

/// The cells of a Markdown table row (`| a | b |`), trimmed, split at unescaped `|` and with
/// [`md_cell`]'s escapes undone.
fn cells(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some('|' | '\\')) => {
                out.last_mut().expect("one cell").extend(chars.next());
            }
            '|' => out.push(String::new()),
            c => out.last_mut().expect("one cell").push(c),
        }
    }
    // The text before a leading pipe and after a trailing one is no cell.
    if out.len() > 1 && out[0].trim().is_empty() {
        out.remove(0);
    }
    if out.len() > 1 && out.last().is_some_and(|c| c.trim().is_empty()) {
        out.pop();
    }
    out.iter().map(|c| c.trim().to_string()).collect()
}

fn is_rule(line: &str) -> bool {
    let c = cells(line);
    !c.is_empty()
        && c.iter()
            .all(|x| !x.is_empty() && x.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
}

/// A Markdown text of headings, paragraphs and pipe tables (what dpbench's `*.md` tables
/// hold) as HTML; `**bold**` and `` `code` `` inside are kept as text.
pub fn markdown(md: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = md.lines().collect();
    let mut i = 0;
    let mut para: Vec<&str> = Vec::new();
    let flush = |para: &mut Vec<&str>, out: &mut String| {
        if !para.is_empty() {
            writeln!(out, "<p>{}</p>", escape(&para.join(" "))).expect("string");
            para.clear();
        }
    };
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        if t.starts_with('|') && i + 1 < lines.len() && is_rule(lines[i + 1]) {
            flush(&mut para, &mut out);
            out.push_str("<table>\n<thead><tr>");
            for c in cells(t) {
                write!(out, "<th>{}</th>", escape(&c)).expect("string");
            }
            out.push_str("</tr></thead>\n<tbody>\n");
            i += 2;
            while i < lines.len() && lines[i].trim().starts_with('|') {
                out.push_str("<tr>");
                for c in cells(lines[i]) {
                    write!(out, "<td>{}</td>", escape(&c)).expect("string");
                }
                out.push_str("</tr>\n");
                i += 1;
            }
            out.push_str("</tbody>\n</table>\n");
            continue;
        }
        if let Some(h) = t.strip_prefix('#') {
            flush(&mut para, &mut out);
            let h = h.trim_start_matches('#').trim();
            writeln!(out, "<h4>{}</h4>", escape(h)).expect("string");
        } else if t.is_empty() {
            flush(&mut para, &mut out);
        } else {
            para.push(t);
        }
        i += 1;
    }
    flush(&mut para, &mut out);
    out
}

/// An SVG file's markup for inlining: without an XML prolog, scaled to the column width
/// (dpbench's SVGs carry a viewBox, so dropping the fixed size keeps their proportions).
pub fn inline_svg(svg: &str, title: &str) -> String {
    let start = svg.find("<svg").unwrap_or(0);
    let body = &svg[start..];
    let end = body.find('>').unwrap_or(0);
    let (open, rest) = body.split_at(end);
    let mut attrs = String::new();
    let mut kept = open.trim_start_matches("<svg").to_string();
    for attr in ["width", "height"] {
        if let Some(p) = kept.find(&format!(" {attr}=\"")) {
            let from = p + attr.len() + 3;
            if let Some(q) = kept[from..].find('"') {
                kept.replace_range(p..from + q + 1, "");
            }
        }
    }
    write!(
        attrs,
        "<svg{kept} class=\"figure\" role=\"img\" aria-label=\"{}\"",
        escape(title)
    )
    .expect("string");
    attrs + rest
}

/// The page: `title`, a navigation list of (anchor, label), and the body.
pub fn page(title: &str, nav: &[(String, String)], header: &str, body: &str) -> String {
    let mut links = String::new();
    for (anchor, label) in nav {
        write!(
            links,
            "<li><a href=\"#{anchor}\">{}</a></li>",
            escape(label)
        )
        .expect("string");
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{t}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <header><h1>{t}</h1>\n{header}<nav><ul>{links}</ul></nav></header>\n<main>\n{body}</main>\n\
         </body>\n</html>\n",
        t = escape(title)
    )
}

const STYLE: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{background:#20324a;color:#fff;padding:1.2em 2em}
header h1{margin:0 0 .3em 0;font-size:1.6em}
header a{color:#cfe3ff}
header dl{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;margin:.5em 0;font-size:.9em}
header dt{font-weight:600}header dd{margin:0}
nav ul{list-style:none;padding:0;margin:.6em 0 0 0;display:flex;flex-wrap:wrap;gap:.4em 1.2em}
main{padding:1em 2em;max-width:1500px}
section{margin-bottom:2.5em;border-bottom:1px solid #ddd;padding-bottom:1.5em}
h2{color:#20324a}
figure{margin:1em 0;background:#fff;border:1px solid #e2e2e2;padding:.5em}
figcaption{font-size:.85em;color:#555;margin-top:.3em}
svg.figure{width:100%;height:auto;display:block}
table{border-collapse:collapse;margin:.6em 0;font-size:.85em;background:#fff}
th,td{border:1px solid #d5d5d5;padding:.25em .55em;text-align:left}
thead th{background:#eef2f7}
tbody tr:nth-child(even){background:#f7f7f7}
details{margin:.5em 0}
pre{background:#f0f0f0;padding:.6em;overflow-x:auto;font-size:.8em}
.note{color:#6a4b00;background:#fff7e0;border-left:3px solid #e0b000;padding:.3em .6em;font-size:.9em}
article{background:#fff;border:1px solid #e2e2e2;padding:.6em 1em;margin:1em 0}
article h3{margin-top:.2em}
.links a{margin-right:1em}
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_tables_become_html_tables() {
        let md = "# Title <x>\n\nSome text\nmore.\n\n| a | b |\n|---|:-:|\n| 1 | <2> |\n| 3 | 4 |\n\nafter";
        let h = markdown(md);
        assert!(h.contains("<h4>Title &lt;x&gt;</h4>"), "{h}");
        assert!(h.contains("<p>Some text more.</p>"));
        assert!(h.contains("<thead><tr><th>a</th><th>b</th></tr></thead>"));
        assert!(h.contains("<tr><td>1</td><td>&lt;2&gt;</td></tr>"));
        assert_eq!(h.matches("<tr>").count(), 3);
        assert!(h.ends_with("<p>after</p>\n"));
    }

    #[test]
    fn escaped_pipes_stay_inside_their_cell() {
        for name in ["a|b", "back\\slash|", "|", "\\|", "two\nlines", "plain"] {
            let md = format!(
                "| ε | {} | x |\n|---|---|---|\n| 1 | {} | 2 |\n",
                md_cell(name),
                md_cell(name)
            );
            let h = markdown(&md);
            let want = escape(&name.replace('\n', " "));
            assert!(
                h.contains(&format!("<th>ε</th><th>{want}</th><th>x</th>")),
                "{name}: {h}"
            );
            assert!(
                h.contains(&format!("<td>1</td><td>{want}</td><td>2</td>")),
                "{name}: {h}"
            );
        }
        assert_eq!(md_cell("alg1"), "alg1");
        assert_eq!(md_cell("a|b"), "a\\|b");
    }

    #[test]
    fn svgs_lose_their_prolog_and_fixed_size() {
        let svg = "<?xml version=\"1.0\"?>\n<svg width=\"300\" height=\"200\" viewBox=\"0 0 300 200\" xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>";
        let s = inline_svg(svg, "fig \"1\"");
        assert!(s.starts_with("<svg viewBox=\"0 0 300 200\""), "{s}");
        assert!(!s.contains("width=\"300\"") && !s.contains("<?xml"));
        assert!(s.contains("aria-label=\"fig &quot;1&quot;\""));
        assert!(s.ends_with("><rect/></svg>"));
    }
}
