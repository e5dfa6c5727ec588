//! Seeds derived by hashing, so that every cell and every run inside a cell has its own
//! random stream whatever the thread count, the order, or how many runs came before.

use sha2::{Digest, Sha256};

/// First 8 bytes of a SHA-256 of the length-prefixed parts, as u64: a well-mixed,
/// platform-independent seed.
pub fn derive_seed(parts: &[&[u8]]) -> u64 {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    let d = h.finalize();
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

/// Seed of run `i` of a cell (the candidates of one tuning cell): its own stream, independent
/// of the other runs and of how many ran before.
pub fn run_seed(cell_seed: u64, i: usize) -> u64 {
    derive_seed(&[&cell_seed.to_le_bytes(), &(i as u64).to_le_bytes()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_distinct_and_stable() {
        let a = derive_seed(&[b"x", b"1"]);
        assert_eq!(a, derive_seed(&[b"x", b"1"]));
        assert_ne!(
            a,
            derive_seed(&[b"x1", b""]),
            "length prefix separates parts"
        );
        assert_ne!(a, derive_seed(&[b"x", b"2"]));
    }
}
