//! Three Kingdoms Xiangqi: three players (Shu, Wu, Wei) on 135 points, with defeat and
//! army takeover. The conventions are those of `spec/three-kingdoms.md`.
//!
//! - [`geometry`]: points, edges (grid, river arms, central triangle), straight lines
//!   that branch at the triangle, cells and diagonals, and the step tables of every
//!   piece, built once.

pub mod geometry;

pub use geometry::{Kingdom, Point, PointError};
