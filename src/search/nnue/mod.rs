//! A learned evaluation: an efficiently updatable neural network (NNUE) for the two
//! 9x10 variants.
//!
//! 1260 piece-square inputs seen from each side ([`features`]), one i16 accumulator of
//! `hidden` lanes per side ([`accumulator`]), kept along the search path move by move
//! ([`stack`]); a squared clipped ReLU of both (the side to move's first) into one of
//! up to 16 outputs chosen by the material left ([`output`]). The file format and its
//! checks are in [`net`], the arithmetic (scalar, and AVX2 where the processor has it,
//! bit for bit the same) in [`kernel`].
//!
//! Units: the search's evaluation is centipawn-like (a soldier about 100, a chariot
//! about 900 in Xiangqi, 1300 in Janggi); a net's `scale` turns its float output into
//! those units.

pub mod accumulator;
pub mod embedded;
mod evaluation;
pub mod features;
pub mod kernel;
pub mod net;
mod output;
pub mod random;
pub mod stack;

pub use accumulator::Accumulator;
pub use evaluation::{Evaluation, name as evaluation_name};
pub use features::Change;
pub use kernel::Kernel;
pub use net::{NetError, NetProblem, NetVariant, Network};
pub use output::pieces_besides_generals;
pub use stack::AccumulatorStack;

#[cfg(test)]
mod net_tests;
