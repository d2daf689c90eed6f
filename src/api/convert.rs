//! Proto <-> domain conversions for the 9x10 games: a request's position becomes a
//! `BoardGame` of the variant layer under its rule set, its enums the domain's, and
//! the domain's answers messages. The variant is dispatched by `BoardGame`; the RPCs
//! never match on it themselves.
//!
//! In three parts: `position` (a request's game), `moves` (answers as messages)
//! and `fields` (enum fields, caps, adjudication); everything is re-exported here.

mod fields;
mod moves;
mod position;

pub use fields::*;
pub use moves::*;
pub use position::*;
