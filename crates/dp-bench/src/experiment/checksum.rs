//! Checksummed JSON lines, for the journal (`cells.log`) and study checkpoints
//! (`points.jsonl`): each line is a JSON object whose last member is `"sum"`, the first 8
//! bytes (hex) of the SHA-256 of the object written without it.
//!
//! A line that stays valid JSON after an edit or a flipped bit (an accuracy 96.0 → 16.0) is
//! still caught: JSON parsing alone only catches damage that breaks the syntax. SHA-256 rather
//! than a CRC because `sha2` is already a dependency and a line costs about a microsecond,
//! against milliseconds for the cell it records.

use sha2::{Digest, Sha256};

/// `,"sum":"` + 16 hex digits + `"}`.
const SUFFIX_LEN: usize = 8 + 16 + 2;

/// The checksum of `body` (a JSON object's text), as 16 hex digits.
pub fn sum(body: &[u8]) -> String {
    hex::encode(&Sha256::digest(body)[..8])
}

/// `body` (a non-empty JSON object's text, `{…}`) with its `"sum"` member appended.
pub fn seal(body: &[u8]) -> Vec<u8> {
    debug_assert!(body.len() > 2 && body.first() == Some(&b'{') && body.last() == Some(&b'}'));
    let mut out = Vec::with_capacity(body.len() + SUFFIX_LEN);
    out.extend_from_slice(&body[..body.len() - 1]);
    out.extend_from_slice(b",\"sum\":\"");
    out.extend_from_slice(sum(body).as_bytes());
    out.extend_from_slice(b"\"}");
    out
}

/// What [`open`] found in a line.
#[derive(Debug, PartialEq, Eq)]
pub enum Opened<'a> {
    /// The checksum matches; the object without its `"sum"`.
    Sealed(Vec<u8>),
    /// No `"sum"` member: a line written before checksums existed (accepted, validated by
    /// ranges only).
    Unsealed(&'a [u8]),
}

/// Checks the `"sum"` of one line (without its newline); an error says what is wrong.
pub fn open(line: &[u8]) -> Result<Opened<'_>, String> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let marker = b",\"sum\":\"";
    let shaped = line.len() >= SUFFIX_LEN + 2
        && line.ends_with(b"\"}")
        && line[line.len() - SUFFIX_LEN..].starts_with(marker);
    if !shaped {
        return if find(line, b"\"sum\"") {
            Err("its checksum is not where it belongs (last member)".into())
        } else {
            Ok(Opened::Unsealed(line))
        };
    }
    let cut = line.len() - SUFFIX_LEN;
    let mut body = line[..cut].to_vec();
    body.push(b'}');
    check(body, &line[cut + marker.len()..line.len() - 2])
}

fn check(body: Vec<u8>, stored: &[u8]) -> Result<Opened<'static>, String> {
    let want = sum(&body);
    if stored == want.as_bytes() {
        Ok(Opened::Sealed(body))
    } else {
        Err(format!(
            "checksum mismatch (stored {}, contents hash to {want}): the line was edited or damaged",
            String::from_utf8_lossy(stored)
        ))
    }
}

fn find(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_lines_open_and_any_change_is_caught() {
        let body = br#"{"key":"a|1|0|ff","accuracy":96.0}"#;
        let line = seal(body);
        assert_eq!(open(&line), Ok(Opened::Sealed(body.to_vec())));
        let mut nl = line.clone();
        nl.push(b'\n');
        assert_eq!(open(&nl), Ok(Opened::Sealed(body.to_vec())));
        // Every single-byte change is caught or breaks the line's shape.
        for i in 0..line.len() {
            for flip in [1u8, 0x20, 0x80] {
                let mut bad = line.clone();
                bad[i] ^= flip;
                match open(&bad) {
                    Ok(Opened::Sealed(b)) => panic!("byte {i} ^ {flip} passed as {b:?}"),
                    Ok(Opened::Unsealed(_)) | Err(_) => {}
                }
            }
        }
        let edited = String::from_utf8(line)
            .unwrap()
            .replace("96.0", "16.0")
            .into_bytes();
        assert!(open(&edited).unwrap_err().contains("checksum mismatch"));
    }

    #[test]
    fn old_lines_and_misplaced_sums() {
        assert_eq!(
            open(b"{\"a\":1}"),
            Ok(Opened::Unsealed(b"{\"a\":1}".as_slice()))
        );
        assert!(open(br#"{"sum":"0011223344556677","a":1}"#).is_err());
    }
}
