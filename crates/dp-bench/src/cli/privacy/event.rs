//! `dp-bench privacy event FILE|-`: ε of an event written in the JSON vocabulary outside
//! learners declare (dp_accounting's `DpEvent` classes, `dp_core::accounting::event_json`),
//! by the RDP and PLD accountants and the smaller of them (what dp-bench certifies).

use std::io::Read;
use std::path::PathBuf;

use clap::Args;
use dp_core::accounting::event_json::{parse_relation, parse_str};
use dp_core::accounting::{Certifier, PldAccountant, RdpAccountant, epsilon_of};
use dp_core::error::check_delta;

use super::output::{Answer, flag_error};
use crate::cli::UsageError;

/// Largest event file read (bytes): a declaration of `MAX_NODES` events fits in far less.
const MAX_EVENT_BYTES: u64 = 16 << 20;

/// ε at δ of an event given as JSON.
#[derive(Args)]
pub struct EventArgs {
    /// File holding the event's JSON, or `-` for standard input, e.g.
    /// {"type":"SelfComposed","count":1000,"event":{"type":"PoissonSampled",
    /// "sampling_probability":0.01,"event":{"type":"Gaussian","noise_multiplier":1.1}}}
    file: PathBuf,
    /// Target δ.
    #[arg(allow_negative_numbers = true, long)]
    delta: f64,
    /// Neighbouring relation: ADD_OR_REMOVE_ONE or REPLACE_ONE (dp_accounting's names).
    #[arg(long, default_value = "ADD_OR_REMOVE_ONE")]
    relation: String,
}

/// Reads, parses and accounts the event.
pub fn run(a: EventArgs) -> anyhow::Result<Answer> {
    check_delta(a.delta).map_err(flag_error)?;
    let relation =
        parse_relation(&a.relation).map_err(|e| UsageError(format!("--relation: {e}")))?;
    let source = if a.file.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        a.file.display().to_string()
    };
    let mut text = String::new();
    let read = if a.file.as_os_str() == "-" {
        std::io::stdin()
            .take(MAX_EVENT_BYTES + 1)
            .read_to_string(&mut text)
    } else {
        std::fs::File::open(&a.file)
            .and_then(|f| f.take(MAX_EVENT_BYTES + 1).read_to_string(&mut text))
    };
    read.map_err(|e| UsageError(format!("cannot read the event from {source}: {e}")))?;
    if text.len() as u64 > MAX_EVENT_BYTES {
        return Err(UsageError(format!(
            "{source}: an event file may hold at most {MAX_EVENT_BYTES} bytes"
        ))
        .into());
    }
    let event =
        parse_str(&text, relation, None).map_err(|e| UsageError(format!("{source}: {e}")))?;
    let best = Certifier::new()
        .epsilon(&event, a.delta)
        .map_err(flag_error)?;
    let rdp = epsilon_of(RdpAccountant::new(), &event, a.delta);
    let pld = epsilon_of(PldAccountant::new(), &event, a.delta);
    let mut notes = vec![format!("{}, δ = {}", a.relation, a.delta)];
    for (name, r) in [("RDP", &rdp), ("PLD", &pld)] {
        if let Err(e) = r {
            notes.push(format!("{name}: {e}"));
        }
    }
    Ok(Answer {
        values: vec![
            ("epsilon", best),
            ("epsilon_rdp", rdp.unwrap_or(f64::NAN)),
            ("epsilon_pld", pld.unwrap_or(f64::NAN)),
        ],
        context: notes.join("; "),
    })
}
