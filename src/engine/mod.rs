//! Engine (being written).
