//! What the commands share: the position they start from (its variant is the domain's
//! [`Variant`], read by its own names), and how it and a rule set become the API's.

use chuhe::api::{convert, proto};
use chuhe::game::{RuleSet, Variant};
use chuhe::rules::three_kingdoms;
use chuhe::rules::xiangqi::handicap::{self, NamedStart};

use crate::Failure;

#[derive(clap::Args)]
/// The position a command works on: variant, start and moves.
pub struct PositionArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    pub variant: Variant,
    /// Start position as FEN, or `startpos`.
    #[arg(long, default_value = "startpos")]
    pub fen: String,
    /// Moves to play from the FEN first, in ICCS, separated by spaces (Three Kingdoms:
    /// point names such as `Rh3-Re3`).
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Three Kingdoms: `--fen startpos` without flag bearers.
    #[arg(long)]
    pub no_flag_bearers: bool,
    /// Xiangqi handicap start instead of `--fen` (two-moves, three-moves, four-moves,
    /// one-horse, horse-and-move, two-horses, one-chariot, nine-pieces), with its rules;
    /// `N-moves` for the odds of any number of moves up to 10 (`6-moves`).
    #[arg(long)]
    pub preset: Option<String>,
}

/// The API's rule set for the one named on the command line (none: unspecified).
pub fn proto_rule_set(rules: Option<RuleSet>) -> proto::RuleSet {
    rules.map_or(proto::RuleSet::Unspecified, convert::proto_rule_set)
}

/// The API's position for the command's arguments.
pub fn proto_position(args: &PositionArgs) -> Result<proto::Position, Failure> {
    let (preset, handicap_moves) = proto_start(args.preset.as_deref())?;
    let fen = if args.no_flag_bearers && args.fen.trim() == "startpos" {
        three_kingdoms::text::START_WITHOUT_FLAG_BEARERS.to_string()
    } else {
        args.fen.clone()
    };
    Ok(proto::Position {
        variant: convert::proto_variant(args.variant) as i32,
        fen,
        moves: args.moves.split_whitespace().map(str::to_string).collect(),
        preset,
        handicap_moves,
        ..Default::default()
    })
}

/// The handicap start named on the command line: a preset, or `N-moves`.
pub fn start_arg(name: Option<&str>) -> Result<Option<NamedStart>, Failure> {
    let Some(name) = name else { return Ok(None) };
    NamedStart::from_name(name).map(Some).ok_or_else(|| {
        Failure::Message(format!("unknown preset {name:?}: a preset's name, or N-moves up to {}", handicap::MAX_MOVES))
    })
}

/// The API's preset and handicap moves for the start named on the command line
/// (unspecified and none when no start is named).
pub fn proto_start(name: Option<&str>) -> Result<(i32, u32), Failure> {
    Ok(match start_arg(name)? {
        None => (proto::StartPreset::Unspecified as i32, 0),
        Some(start) => {
            let (preset, moves) = convert::proto_start(start);
            (preset as i32, moves)
        }
    })
}

/// A request the API refused, said on stderr.
pub fn api_failure(e: chuhe::api::Error) -> Failure {
    Failure::Message(e.to_string())
}

/// The answer of an RPC in the canonical protobuf JSON mapping.
pub fn json(message: &impl serde::Serialize) -> Result<String, Failure> {
    serde_json::to_string_pretty(message).map_err(|e| Failure::Message(e.to_string()))
}
