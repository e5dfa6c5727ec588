//! The open method table: every `[methods.NAME]` of a config names a `kind` found in
//! [`METHODS`]; the entry parses the table into a [`Method`], which runs cells and says how its
//! trials aggregate. Adding a method is one file (its config struct, its `Method` impl and its
//! [`MethodEntry`]) plus one line in [`METHODS`].

mod alg1;
mod constant;
mod dpsgd;
pub mod external;
mod honest_details;
mod iyengar;
mod load_config;
mod neel;
mod svt;

pub use crate::experiment::audited;
pub use crate::experiment::context::{
    Context, LossKind, OptimizerKind, Prepared, public_core_norm_bound, public_row_norm_bound,
    test_accuracy,
};
pub use crate::experiment::method::{
    Aggregate, CellOutcome, FeatureKinds, Method, MethodEntry, NoDetails, Protocol, Registry,
    check_grid_size, check_one_vs_all, param_error, parse_table, scores,
};
pub use crate::experiment::row_clip;
pub use honest_details::HonestDetails;

/// Every method kind a config can name, in `dp-bench list` order.
pub static METHODS: &[MethodEntry] = &[
    alg1::ENTRY,
    dpsgd::ENTRY,
    iyengar::NP,
    iyengar::AMP,
    iyengar::AMP_HF,
    iyengar::PSGD,
    iyengar::PPSGD,
    iyengar::PSCPSGD,
    iyengar::PFW,
    #[cfg(feature = "mip")]
    neel::OPDISC,
    #[cfg(feature = "mip")]
    neel::RSPM,
    neel::OPSAMP,
    #[cfg(feature = "mip")]
    neel::ZERO_ONE_ERM,
    neel::LOGREG_ERM,
    external::ENTRY,
    svt::SVT,
    constant::CONSTANT,
];

/// The method kinds that only a cargo feature of dp-bench builds, whether or not this build
/// has it: a config naming one in a build without it is refused with how to rebuild, not as
/// an unknown kind (a test keeps these lists and [`METHODS`] in step).
pub static FEATURE_KINDS: &[FeatureKinds] = &[FeatureKinds {
    feature: "mip",
    built: cfg!(feature = "mip"),
    kinds: &["opdisc", "rspm", "zero_one_erm"],
    needs: "the MIP oracle",
    prerequisites: "cmake and libclang; see docs/papers/neel2019.md",
}];

/// The feature that would build `kind`, if `kind` is one this build lacks.
pub fn missing_feature(kind: &str) -> Option<&'static FeatureKinds> {
    FEATURE_KINDS
        .iter()
        .find(|f| !f.built && f.kinds.contains(&kind))
}

/// The table this process reads configs with, once a program installs one.
static ACTIVE: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();

impl Registry {
    /// The built-in methods ([`METHODS`]).
    pub fn builtin() -> Self {
        Registry::new(METHODS, FEATURE_KINDS)
    }

    /// Makes this the table every config of the process is read with: runs, shards, merges,
    /// reports and figures then all know a learner added with [`Registry::with`] (a results
    /// folder's `config.toml` is re-read by merge and the readers). Install before anything
    /// reads a config; a second install, or one after a config was read, is refused (two
    /// tables in one process could read one folder two ways).
    pub fn install(self) -> Result<(), String> {
        ACTIVE.set(self).map_err(|_| {
            "a method table is already in use in this process: install yours once, before \
             any config is read"
                .to_string()
        })
    }

    /// The installed table, else the built-in one (which is then fixed for the process).
    pub fn active() -> &'static Registry {
        ACTIVE.get_or_init(Registry::builtin)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::experiment::config::Config;
    use crate::experiment::grid::Cell;

    /// A method that declares one-vs-all support, standing for Iyengar et al.'s kinds.
    #[derive(Debug)]
    struct PerClass;

    impl Method for PerClass {
        fn kind(&self) -> &'static str {
            "per_class"
        }
        fn params(&self) -> serde_json::Value {
            serde_json::Value::Null
        }
        fn run(&self, _: &Context<'_>, _: &Cell) -> anyhow::Result<CellOutcome> {
            anyhow::bail!("not run in these tests")
        }
        fn one_vs_all(&self) -> bool {
            true
        }
    }

    static PER_CLASS: MethodEntry = MethodEntry {
        kind: "per_class",
        summary: "test",
        parse: |_| Ok(Box::new(PerClass)),
    };

    /// Parsed without the key, then set, so the test does not depend on where the config
    /// calls the check.
    fn config(methods: &str) -> Config {
        let text = format!(
            "seed = 1\ntrials = 1\nepsilons = [1.0]\ndelta = 1e-5\n\
             [dataset]\nname = \"mnist\"\n{methods}"
        );
        let registry = Registry::builtin().with(&PER_CLASS);
        let mut cfg = Config::parse_with(&text, Path::new("x.toml"), &registry).unwrap();
        cfg.dataset.one_vs_all = true;
        cfg
    }

    #[test]
    fn one_vs_all_is_refused_for_alg1_and_dpsgd_naming_key_method_and_fix() {
        let registry = Registry::builtin().with(&PER_CLASS);
        let cfg = config(
            "[methods.a]\nkind = \"alg1\"\n[methods.d]\nkind = \"dpsgd\"\ntuning = \"honest\"\n\
             [methods.p]\nkind = \"per_class\"\n",
        );
        let e = check_one_vs_all(&cfg.dataset, &cfg.methods, &registry).unwrap_err();
        for needle in [
            "key `dataset.one_vs_all` = true",
            "`methods.a` (kind \"alg1\")",
            "`methods.d` (kind \"dpsgd\")",
            "remove the key or those methods",
            "per class: ",
            "per_class",
        ] {
            assert!(e.contains(needle), "{needle:?} missing from: {e}");
        }
        assert!(!e.contains("`methods.p`"), "{e}");

        let per_class = config("[methods.p]\nkind = \"per_class\"\n");
        assert_eq!(
            check_one_vs_all(&per_class.dataset, &per_class.methods, &registry),
            Ok(())
        );
        let mut binary = cfg.clone();
        binary.dataset.one_vs_all = false;
        assert_eq!(
            check_one_vs_all(&binary.dataset, &binary.methods, &registry),
            Ok(())
        );
    }

    #[test]
    fn feature_kinds_are_in_the_table_exactly_when_built() {
        let builtin = Registry::builtin();
        for f in FEATURE_KINDS {
            for kind in f.kinds {
                assert_eq!(
                    builtin.entry(kind).is_some(),
                    f.built,
                    "{kind} ({})",
                    f.feature
                );
                assert_eq!(missing_feature(kind).is_some(), !f.built, "{kind}");
            }
        }
        assert!(missing_feature("alg1").is_none() && missing_feature("nope").is_none());
    }

    #[test]
    fn a_kind_this_build_lacks_is_refused_with_how_to_rebuild() {
        let text = "seed = 1\ntrials = 1\nepsilons = [1.0]\ndelta = 1e-5\n\
                    [dataset]\nname = \"adult-neel\"\n[methods.r]\nkind = \"rspm\"\n";
        let parsed = Config::parse(text, Path::new("x.toml"));
        if cfg!(feature = "mip") {
            assert!(parsed.is_ok(), "{parsed:?}");
            return;
        }
        let e = parsed.unwrap_err();
        assert!(
            e.downcast_ref::<crate::error::UsageError>().is_some(),
            "{e:#}"
        );
        assert_eq!(
            e.to_string(),
            "x.toml: method kind \"rspm\" (table `methods.r` at line 7) needs the MIP oracle, \
             which this build lacks: rebuild with `cargo build --release -p dp-bench --features \
             mip` (needs cmake and libclang; see docs/papers/neel2019.md)"
        );
    }

    #[test]
    fn the_supporting_kinds_are_read_off_the_methods() {
        let kinds = Registry::builtin().with(&PER_CLASS).one_vs_all_kinds();
        assert!(kinds.contains("per_class"), "{kinds}");
        assert!(
            !kinds.contains("alg1") && !kinds.contains("dpsgd"),
            "{kinds}"
        );
    }
}
