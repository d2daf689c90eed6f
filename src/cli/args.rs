//! What the commands share: the position they start from, the variant, the rule set
//! and the notation as the command line names them, and how they become the API's.

use chuhe::api::proto;
use chuhe::rules::three_kingdoms;
use chuhe::rules::xiangqi::handicap::{self, NamedStart};
use clap::ValueEnum;

use crate::Failure;

#[derive(Clone, Copy, Debug, ValueEnum)]
/// The variant of a command's position.
pub enum Variant {
    Xiangqi,
    Janggi,
    #[value(name = "three-kingdoms")]
    ThreeKingdoms,
}

impl Variant {
    /// The API's variant.
    pub fn proto(self) -> proto::Variant {
        match self {
            Variant::Xiangqi => proto::Variant::Xiangqi,
            Variant::Janggi => proto::Variant::Janggi,
            Variant::ThreeKingdoms => proto::Variant::ThreeKingdoms,
        }
    }
}

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

#[derive(Clone, Copy, Debug, ValueEnum)]
/// A rule set named on the command line.
pub enum RulesArg {
    /// SIMPLIFIED_V1: perpetual check loses, other repetitions draw.
    Simplified,
    /// ASIAN_V1: perpetual check and chase.
    Asian,
    /// TOURNAMENT_V1: perpetual check and perpetual attack, with the listed exceptions.
    Tournament,
    /// JANGGI_CASUAL_V1: bikjang claims and two passes draw, repetition draws.
    #[value(name = "janggi-casual")]
    JanggiCasual,
    /// JANGGI_TOURNAMENT_V1: counting, a 200-ply limit, perpetual check loses.
    #[value(name = "janggi-tournament")]
    JanggiTournament,
    /// THREE_KINGDOMS_V1: the Three Kingdoms rules of this service.
    #[value(name = "three-kingdoms")]
    ThreeKingdoms,
}

impl RulesArg {
    /// The API's rule set (none: unspecified).
    pub fn to_proto(rules: Option<RulesArg>) -> proto::RuleSet {
        match rules {
            None => proto::RuleSet::Unspecified,
            Some(RulesArg::Simplified) => proto::RuleSet::SimplifiedV1,
            Some(RulesArg::Asian) => proto::RuleSet::AsianV1,
            Some(RulesArg::Tournament) => proto::RuleSet::TournamentV1,
            Some(RulesArg::JanggiCasual) => proto::RuleSet::JanggiCasualV1,
            Some(RulesArg::JanggiTournament) => proto::RuleSet::JanggiTournamentV1,
            Some(RulesArg::ThreeKingdoms) => proto::RuleSet::ThreeKingdomsV1,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
/// A move notation named on the command line.
pub enum NotationArg {
    /// `h2e2`
    Iccs,
    /// `h3-e3` (ranks 1-10)
    Coordinate,
    /// `C2.5`
    Wxf,
    /// `炮二平五`
    Chinese,
    /// `B2=5` (Italian letters)
    Italian,
    /// `Bhe3` (algebraic, Italian letters)
    Algebraic,
    /// `79졸78` (Korean, as Janggi records write moves)
    Korean,
}

impl NotationArg {
    /// The API's notation.
    pub fn proto(self) -> proto::Notation {
        match self {
            NotationArg::Iccs => proto::Notation::Iccs,
            NotationArg::Coordinate => proto::Notation::Coordinate,
            NotationArg::Wxf => proto::Notation::Wxf,
            NotationArg::Chinese => proto::Notation::Chinese,
            NotationArg::Italian => proto::Notation::Italian,
            NotationArg::Algebraic => proto::Notation::Algebraic,
            NotationArg::Korean => proto::Notation::Korean,
        }
    }
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
        variant: args.variant.proto() as i32,
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
            let (preset, moves) = chuhe::api::convert::proto_start(start);
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
