//! Writing to standard output and standard error without panicking.
//!
//! `println!` panics when stdout is a closed pipe (`dp-bench privacy … | true`) or a full disk
//! (`> /dev/full`), with a backtrace and exit 101. Every command writes through
//! [`outln!`](crate::outln) and [`out!`](crate::out) instead, which return an error the CLI
//! reports in one line with exit 1; messages to stderr go through [`errln!`](crate::errln),
//! which drops its text when stderr itself is closed (there is nowhere left to say anything,
//! and a warning must not stop a run whose results are written).

use std::fmt;
use std::io::{self, Write};

/// Standard output could not be written (a closed pipe, a full disk).
#[derive(Debug)]
pub struct OutputError(pub io::Error);

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "writing to standard output: {}", self.0)
    }
}

impl std::error::Error for OutputError {}

/// Writes `args` to stdout and flushes, so that a failure is seen here and not lost at exit.
pub fn write_out(args: fmt::Arguments<'_>) -> Result<(), OutputError> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.flush())
        .map_err(OutputError)
}

/// Writes `args` to stderr, ignoring failure (see the module comment).
pub fn write_err(args: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.flush());
}

/// `print!` that returns `Result<(), OutputError>` instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::console::write_out(format_args!($($arg)*)) };
}

/// `println!` that returns `Result<(), OutputError>` instead of panicking.
#[macro_export]
macro_rules! outln {
    () => { $crate::console::write_out(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::console::write_out(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `eprintln!` that never panics.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => { $crate::console::write_err(format_args!("{}\n", format_args!($($arg)*))) };
}
