//! Quoting for the text formats results are written in: a CSV field (RFC 4180) and a
//! Markdown table cell, and reading CSV records back; and numbers short enough for a message. It sits at the bottom of the crate
//! because the results store, summaries, figures and the report all write these formats.

use std::borrow::Cow;

/// `s` as one CSV field: unchanged unless it holds a comma, a quote, a line break or space at
/// either end (which readers trim), then in double quotes with each quote doubled (RFC 4180).
/// Plain fields so keep the exact bytes they always had.
pub fn field(s: &str) -> Cow<'_, str> {
    let edge = |c: Option<char>| c.is_some_and(char::is_whitespace);
    if s.contains([',', '"', '\n', '\r']) || edge(s.chars().next()) || edge(s.chars().last()) {
        Cow::Owned(format!("\"{}\"", s.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(s)
    }
}

/// The records of CSV text (RFC 4180 quoting; a quoted field may hold commas and line breaks).
/// Unquoted fields are trimmed and blank lines skipped, as the files were always read.
pub fn records(text: &str) -> Result<Vec<Vec<String>>, String> {
    let (mut out, mut record, mut cell) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut in_quotes, mut line) = (false, false, 1);
    let mut chars = text.chars().peekable();
    let end_cell = |cell: &mut String, quoted: &mut bool, record: &mut Vec<String>| {
        let c = std::mem::take(cell);
        record.push(if *quoted { c } else { c.trim().to_string() });
        *quoted = false;
    };
    while let Some(c) = chars.next() {
        match c {
            '"' if in_quotes && chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            '"' if in_quotes => in_quotes = false,
            '"' if !quoted && cell.trim().is_empty() => {
                (quoted, in_quotes) = (true, true);
                cell.clear();
            }
            _ if in_quotes => {
                line += usize::from(c == '\n');
                cell.push(c);
            }
            ',' => end_cell(&mut cell, &mut quoted, &mut record),
            '\n' => {
                if quoted || !cell.trim().is_empty() || !record.is_empty() {
                    end_cell(&mut cell, &mut quoted, &mut record);
                    out.push(std::mem::take(&mut record));
                }
                cell.clear();
                line += 1;
            }
            _ if quoted => {
                if !c.is_whitespace() {
                    return Err(format!("line {line}: text after a closing quote"));
                }
            }
            _ => cell.push(c),
        }
    }
    if in_quotes {
        return Err(format!("line {line}: a quoted field is not closed"));
    }
    if quoted || !cell.trim().is_empty() || !record.is_empty() {
        end_cell(&mut cell, &mut quoted, &mut record);
        out.push(record);
    }
    Ok(out)
}

/// Text as one cell of a Markdown pipe table: `|` and `\\` backslash-escaped (as GitHub's
/// tables read them) and line breaks made spaces, so a name cannot add columns or rows. Plain
/// text comes back unchanged.
pub fn md_cell(s: &str) -> Cow<'_, str> {
    if !s.contains(['|', '\\']) && !s.contains(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        match c {
            '|' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A number for a one-line message: as Rust prints it where that is short, else in scientific
/// notation (Rust's `{}` spells 1e-300 with 300 digits and 1e300 with 301).
pub fn number(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() || (1e-4..1e15).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}
