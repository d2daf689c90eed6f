//! The domain's names as the command line reads them: [`Variant`], [`RuleSet`],
//! [`Notation`] and [`Color`] are clap's values themselves, so a variant, rule set or notation added
//! to the domain is one of the command line's with no edit there.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use super::{RuleSet, Variant};
use crate::notation::Notation;
use crate::rules::types::Color;

impl ValueEnum for Variant {
    fn value_variants<'a>() -> &'a [Self] {
        &Variant::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.id()).help(self.name()))
    }
}

impl ValueEnum for RuleSet {
    fn value_variants<'a>() -> &'a [Self] {
        &RuleSet::ALL
    }

    /// Its command-line name, or its API name (`ASIAN_V1`).
    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.id()).alias(self.name()).help(self.name()))
    }
}

impl ValueEnum for Notation {
    fn value_variants<'a>() -> &'a [Self] {
        &Notation::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.id()).help(self.name()))
    }
}

impl ValueEnum for Color {
    fn value_variants<'a>() -> &'a [Self] {
        &Color::ALL
    }

    /// `red` (Janggi's Cho) or `black` (Han).
    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Color::Red => "Red (Janggi: Cho)",
            Color::Black => "Black (Janggi: Han)",
        };
        Some(PossibleValue::new(self.name()).help(help))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back() {
        for v in Variant::ALL {
            assert_eq!(Variant::from_str(v.id(), false), Ok(v));
        }
        for r in RuleSet::ALL {
            assert_eq!(RuleSet::from_str(r.id(), false), Ok(r));
            assert_eq!(RuleSet::from_str(r.name(), true), Ok(r));
        }
        for n in Notation::ALL {
            assert_eq!(Notation::from_str(n.id(), false), Ok(n));
            assert_eq!(Notation::from_name(n.id()), Some(n));
        }
    }
}
