//! A map whose values are computed once, by the first caller that needs a key, and shared by
//! every later caller: the honest-tuning plans that all trials of one ε share (the solve is the
//! expensive part). A failure is kept as its message, so every caller of that key gets it.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, OnceLock};

/// One value, computed by the first caller that needs it.
type Slot<V> = Arc<OnceLock<Result<V, String>>>;

/// Values by key, each computed once.
#[derive(Debug)]
pub struct OnceMap<K, V>(Mutex<HashMap<K, Slot<V>>>);

impl<K, V> Default for OnceMap<K, V> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<K: Eq + Hash, V: Clone> OnceMap<K, V> {
    /// The value of `key`: `init`'s, run by the first caller of that key; concurrent callers
    /// of the same key wait for it, callers of other keys do not.
    pub fn get_or_init(
        &self,
        key: K,
        init: impl FnOnce() -> anyhow::Result<V>,
    ) -> Result<V, String> {
        let slot = {
            let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
            map.entry(key).or_default().clone()
        };
        slot.get_or_init(|| init().map_err(|e| format!("{e:#}")))
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[test]
    fn each_key_is_computed_once_and_its_failure_is_kept() {
        let map: OnceMap<u32, u32> = OnceMap::default();
        let runs = AtomicU32::new(0);
        let get = |key: u32, value: u32| {
            map.get_or_init(key, || {
                runs.fetch_add(1, Ordering::SeqCst);
                anyhow::ensure!(value != 0, "zero");
                Ok(value)
            })
        };
        assert_eq!(get(1, 1), Ok(1));
        assert_eq!(get(1, 5), Ok(1));
        assert_eq!(get(0, 0), Err("zero".into()));
        assert_eq!(get(0, 3), Err("zero".into()));
        assert_eq!(get(2, 2), Ok(2));
        assert_eq!(runs.load(Ordering::SeqCst), 3, "one run per key");
    }
}
