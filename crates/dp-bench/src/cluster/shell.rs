//! Text that goes into generated batch scripts. A config or a flag someone else wrote must never
//! become a command: every value is either refused (control characters, which no quoting can
//! keep on one `#SBATCH` line) or quoted for whoever reads it — bash for command words, sbatch's
//! own tokenizer for `#SBATCH` values.

use std::path::Path;

/// `s` as one POSIX shell word: single quotes, each `'` written `'\''`. Inside single quotes
/// bash expands nothing (`$`, backquotes, `\`, `!` and newlines are literal), so this holds for
/// any text without NUL, which a Rust `str` from a path or argument cannot carry anyway.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Refuses text with a control character; `what` names where it came from (a flag or a key)
/// so the message says what to fix.
pub fn one_line<'a>(what: &str, s: &'a str) -> Result<&'a str, String> {
    match s.chars().find(|c| c.is_control()) {
        None => Ok(s),
        Some(c) => Err(format!(
            "{what} = {s:?} contains the control character {c:?}; a generated script would \
             run what follows a line break, so give it on one line without control characters"
        )),
    }
}

/// A path as text for a script: refused if it is not UTF-8 (the script would name another
/// file) or holds a control character.
pub fn path_text<'a>(what: &str, p: &'a Path) -> Result<&'a str, String> {
    let s = p.to_str().ok_or_else(|| {
        format!(
            "{what} {} is not valid UTF-8, which a generated script cannot name exactly; \
             rename it",
            p.display()
        )
    })?;
    one_line(what, s)
}

/// A path as one quoted shell word ([`path_text`], then [`quote`]).
pub fn quote_path(what: &str, p: &Path) -> Result<String, String> {
    path_text(what, p).map(quote)
}

/// The value of an `#SBATCH --flag=VALUE` line. sbatch splits these lines itself: whitespace
/// separates arguments, `'`/`"` quote, `\` escapes and an unquoted `#` ends the line. Plain
/// values stay bare (the scripts read as before); others are double-quoted with `\` and `"`
/// escaped, which sbatch reads back to exactly the value.
pub fn sbatch_value(what: &str, v: &str) -> Result<String, String> {
    one_line(what, v)?;
    let plain = !v.is_empty()
        && v.chars()
            .all(|c| c.is_alphanumeric() || "_.,:/=+-@%".contains(c));
    if plain {
        return Ok(v.to_string());
    }
    Ok(format!(
        "\"{}\"",
        v.replace('\\', "\\\\").replace('"', "\\\"")
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::process::Command;

    /// Hostile values: each would run `touch pwned` or change the script if pasted raw.
    pub const HOSTILE: &[&str] = &[
        "plain",
        "with space",
        "it's",
        "'",
        "''",
        "a'\\''b",
        "$(touch pwned)",
        "`touch pwned`",
        "${IFS}touch${IFS}pwned",
        "x; touch pwned #",
        "x\"; touch pwned; \"",
        "back\\slash\\",
        "!!",
        "*",
        "~root",
        "a|b&c<d>e",
        "#comment",
        "ünïcödé",
        "",
    ];

    /// What sbatch makes of the arguments of one `#SBATCH` line (its `_get_argument`, as in
    /// Slurm's src/sbatch/opt.c: whitespace splits, quotes group, `\` escapes, `#` comments).
    pub fn sbatch_args(line: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut chars = line.chars().peekable();
        loop {
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            let (mut arg, mut quote, mut any) = (String::new(), None, false);
            while let Some(&c) = chars.peek() {
                if quote.is_none() && (c.is_whitespace() || c == '#') {
                    break;
                }
                chars.next();
                match (c, quote) {
                    ('\\', _) => arg.extend(chars.next()),
                    (q, Some(open)) if q == open => quote = None,
                    (_, Some(_)) => arg.push(c),
                    ('"' | '\'', None) => quote = Some(c),
                    _ => arg.push(c),
                }
                any = true;
            }
            assert!(quote.is_none(), "unmatched quote in {line:?}");
            if !any {
                return out;
            }
            out.push(arg);
            if chars.peek() == Some(&'#') {
                return out;
            }
        }
    }

    #[test]
    fn quoted_words_reach_bash_unchanged_and_run_nothing() {
        let dir = tempfile::tempdir().unwrap();
        for &s in HOSTILE {
            let script = format!("printf '%s' {}", quote(s));
            let out = Command::new("bash")
                .arg("-c")
                .arg(&script)
                .current_dir(dir.path())
                .output()
                .expect("bash runs");
            assert!(out.status.success(), "{script}");
            assert_eq!(String::from_utf8_lossy(&out.stdout), s, "{script}");
        }
        assert!(!dir.path().join("pwned").exists());
        // Newlines are literal inside single quotes too (paths refuse them anyway).
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("printf '%s' {}", quote("a\ntouch pwned")))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a\ntouch pwned");
        assert!(!dir.path().join("pwned").exists());
    }

    #[test]
    fn sbatch_values_read_back_exactly_and_control_characters_are_refused() {
        for &s in HOSTILE {
            let v = sbatch_value("--partition", s).unwrap();
            let line = format!("#SBATCH --partition={v}");
            let args = sbatch_args(line.strip_prefix("#SBATCH").unwrap());
            assert_eq!(args, [format!("--partition={s}")], "{line}");
        }
        assert_eq!(sbatch_value("--time", "1:00:00").unwrap(), "1:00:00");
        assert_eq!(sbatch_value("--mem", "8G").unwrap(), "8G");
        for bad in [
            "1:00\ntouch pwned",
            "a\rb",
            "tab\there",
            "nul\0",
            "esc\u{1b}[1m",
        ] {
            let e = sbatch_value("--time", bad).unwrap_err();
            assert!(e.starts_with("--time = ") && e.contains("control"), "{e}");
        }
        let e = quote_path("key `output_dir`", Path::new("out/o\ntouch pwned #")).unwrap_err();
        assert!(
            e.contains("key `output_dir`") && e.contains("one line"),
            "{e}"
        );
        assert_eq!(
            quote_path("p", Path::new("/a b/it's")).unwrap(),
            "'/a b/it'\\''s'"
        );
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_paths_are_refused() {
        use std::os::unix::ffi::OsStrExt;
        let p = Path::new(std::ffi::OsStr::from_bytes(b"/r/\xff"));
        assert!(path_text("--out", p).unwrap_err().contains("UTF-8"));
    }
}
