//! The names the rules give to rule sets and terminations: what rulings, the API's `rule`
//! field and requests that name a rule set rely on.

use std::collections::HashSet;

use chuhe::api::proto;
use chuhe::rules::janggi::adjudicate::RuleSet as JanggiRules;
use chuhe::rules::outcome::Termination;
use chuhe::rules::xiangqi::adjudicate::RuleSet as XiangqiRules;

/// Each rule set is named as the API's `RuleSet` enum names it, without the enum's prefix.
#[test]
fn rule_sets_are_named_as_the_api_enum_names_them() {
    let names = [
        (XiangqiRules::SimplifiedV1.name(), proto::RuleSet::SimplifiedV1),
        (XiangqiRules::AsianV1.name(), proto::RuleSet::AsianV1),
        (XiangqiRules::TournamentV1.name(), proto::RuleSet::TournamentV1),
        (JanggiRules::CasualV1.name(), proto::RuleSet::JanggiCasualV1),
        (JanggiRules::TournamentV1.name(), proto::RuleSet::JanggiTournamentV1),
    ];
    for (name, api) in names {
        assert_eq!(format!("RULE_SET_{name}"), api.as_str_name());
    }
}

/// Every termination has its own name, in lowercase words, so a ruling's text tells
/// them apart.
#[test]
fn every_termination_has_a_name_of_its_own() {
    let all = [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::PerpetualCheck,
        Termination::MutualPerpetualCheck,
        Termination::PerpetualChase,
        Termination::MutualPerpetualChase,
        Termination::RepetitionDraw,
        Termination::MoveLimit,
        Termination::InsufficientMaterial,
        Termination::Resignation,
        Termination::Timeout,
        Termination::AgreedDraw,
        Termination::Bikjang,
        Termination::Counting,
        Termination::DoublePass,
    ];
    let mut seen = HashSet::new();
    for t in all {
        let name = t.name();
        assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == ' '), "{t:?}: {name:?}");
        assert!(seen.insert(name), "{t:?} shares its name {name:?}");
    }
    // The words of the rules texts for the endings a referee names most.
    assert_eq!(Termination::Checkmate.name(), "checkmate");
    assert_eq!(Termination::PerpetualCheck.name(), "perpetual check");
    assert_eq!(Termination::Bikjang.name(), "bikjang");
}
