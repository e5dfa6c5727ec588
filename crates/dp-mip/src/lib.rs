//! Exact integer-program oracles for Neel, Roth, Vietri & Wu (2019): the perturbed 0/1-loss
//! minimisations of OPDisc and RSPM as mixed-integer linear programs solved by HiGHS, with a
//! certificate of exactness per solve (privacy needs the exact argmin).

pub mod oracle;
pub mod rows;

pub use oracle::{Answer, OracleOptions, Status, opdisc, rspm};
pub use rows::Rows;
