//! CLI (being written).
