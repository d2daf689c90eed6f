//! Training the learned evaluation (NNUE): self-play data ([`datagen`]) in a compact
//! file format ([`data`]), and the trainer that fits a net to it and writes the net
//! file the search loads.

pub mod data;
pub mod datagen;
pub mod export;
pub mod model;
pub mod trainer;

#[cfg(test)]
mod export_tests;
