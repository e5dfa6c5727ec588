//! Privacy accounting.
