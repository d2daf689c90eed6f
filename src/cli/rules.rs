//! The commands that ask the rules: `perft`, `moves`, `adjudicate` and `convert`.

use chuhe::api::convert::{self, ContentLimits};
use chuhe::api::proto;
use chuhe::game::{AnyGame, BoardGame, RuleSet, Variant};
use chuhe::notation::Notation;
use chuhe::rules::three_kingdoms;
use chuhe::rules::types::MoveList;
use chuhe::rules::{GamePosition, perft};

use super::args::{PositionArgs, api_failure, json, proto_position, proto_rule_set, proto_start, start_arg};
use crate::Failure;

/// No limit on the moves of a position given on the command line.
const NO_LIMIT: ContentLimits = ContentLimits { max_game_plies: usize::MAX };

/// `chuhe perft`.
pub fn run_perft(position: &PositionArgs, depth: u32, divide: bool) -> Result<(), Failure> {
    match game(position)? {
        AnyGame::ThreeKingdoms(g) => print_perft(&mut g.position().clone(), depth, divide),
        AnyGame::Board(BoardGame::Xiangqi(g, _)) => print_perft(&mut g.position().clone(), depth, divide),
        AnyGame::Board(BoardGame::Janggi(g, _)) => print_perft(&mut g.position().clone(), depth, divide),
    }
}

/// `chuhe moves`: the legal moves, one per line, then the status; or the
/// ListLegalMoves response as JSON.
pub fn run_moves(position: &PositionArgs, as_json: bool) -> Result<(), Failure> {
    if as_json {
        let request = proto::ListLegalMovesRequest { position: Some(proto_position(position)?), ..Default::default() };
        let r = chuhe::api::rules::list_legal_moves(&request, NO_LIMIT).map_err(api_failure)?;
        out!("{}", json(&r)?);
        return Ok(());
    }
    let game = match game(position)? {
        AnyGame::Board(game) => game,
        AnyGame::ThreeKingdoms(game) => return print_three_kingdoms_moves(game.position()),
    };
    let mut list = MoveList::new();
    // The game's moves: a handicap's rules hold too.
    game.legal_moves(&mut list);
    for m in &list {
        out!("{m}");
    }
    out!("status: {}", game.status().name());
    out!("check: {}", if game.in_check() { "yes" } else { "no" });
    Ok(())
}

fn print_three_kingdoms_moves(pos: &three_kingdoms::Position) -> Result<(), Failure> {
    let mut list = three_kingdoms::MoveList::new();
    pos.legal_moves(&mut list);
    for &m in &list {
        out!("{}", pos.move_text(m));
    }
    match pos.status() {
        three_kingdoms::Status::Ongoing => out!("status: ongoing"),
        three_kingdoms::Status::Won(k) => out!("status: {} wins", k.name()),
    }
    out!("side to move: {}", pos.side_to_move().name());
    out!("check: {}", if pos.in_check() { "yes" } else { "no" });
    out!("position: {pos}");
    Ok(())
}

/// `chuhe adjudicate`: the AdjudicateResponse as lines, or as JSON.
pub fn run_adjudicate(position: &PositionArgs, rules: Option<RuleSet>, as_json: bool) -> Result<(), Failure> {
    let request = proto::AdjudicateRequest {
        position: Some(proto_position(position)?),
        rule_set: proto_rule_set(rules) as i32,
        events: Vec::new(),
    };
    let r = chuhe::api::rules::adjudicate(&request, NO_LIMIT).map_err(api_failure)?;
    if as_json {
        out!("{}", json(&r)?);
        return Ok(());
    }
    let name = |v: i32| proto::Player::try_from(v).map_or("?", |p| p.as_str_name());
    out!("result: {}", proto::GameResult::try_from(r.result).map_or("?", |x| x.as_str_name()));
    out!("winner: {}", name(r.winner));
    out!("termination: {}", proto::Termination::try_from(r.termination).map_or("?", |x| x.as_str_name()));
    out!("rule set: {}", proto::RuleSet::try_from(r.rule_set).map_or("?", |x| x.as_str_name()));
    out!("rule: {}", if r.rule.is_empty() { "none" } else { &r.rule });
    out!("decided at ply: {}", r.decided_at_ply);
    if r.cycle_last_ply > 0 {
        out!("cycle: plies {}-{}", r.cycle_first_ply, r.cycle_last_ply);
    }
    out!("explanation: {}", r.explanation);
    Ok(())
}

#[derive(clap::Args)]
/// The arguments of `chuhe convert`.
pub struct ConvertArgs {
    /// The game: Xiangqi, or Janggi (whose moves are written in ICCS, coordinates,
    /// algebraic or Korean notation).
    #[arg(long, value_enum, default_value = "xiangqi")]
    pub variant: Variant,
    /// Start position as FEN, or `startpos`.
    #[arg(long, default_value = "startpos")]
    pub fen: String,
    /// Xiangqi handicap start instead of `--fen` (see `moves --help`).
    #[arg(long)]
    pub preset: Option<String>,
    /// The moves to convert, in the `--from` notation, separated by spaces.
    #[arg(long)]
    pub moves: String,
    /// Notation of `--moves`.
    #[arg(long, value_enum, default_value = "iccs")]
    pub from: Notation,
    /// Notation to write.
    #[arg(long, value_enum, default_value = "iccs")]
    pub to: Notation,
    /// Print the ConvertMoves response in the canonical protobuf JSON mapping.
    #[arg(long)]
    pub json: bool,
}

/// `chuhe convert`: prints the converted moves on one line, or the response as JSON.
pub fn run_convert(args: ConvertArgs) -> Result<(), Failure> {
    let (preset, handicap_moves) = proto_start(args.preset.as_deref())?;
    let request = proto::ConvertMovesRequest {
        start: Some(proto::Position {
            variant: convert::proto_variant(args.variant) as i32,
            fen: args.fen,
            preset,
            handicap_moves,
            ..Default::default()
        }),
        moves: args.moves.split_whitespace().map(str::to_string).collect(),
        from: convert::proto_notation(args.from) as i32,
        to: convert::proto_notation(args.to) as i32,
    };
    let r = chuhe::api::notation::convert_moves(&request, NO_LIMIT).map_err(api_failure)?;
    if args.json {
        out!("{}", json(&r)?);
    } else {
        out!("{}", r.moves.join(" "));
    }
    Ok(())
}

/// The game of `--variant` from `--fen` or `--preset` and `--moves` (ICCS, a pass
/// written `pass`; Three Kingdoms: a position text and point names).
fn game(args: &PositionArgs) -> Result<AnyGame, Failure> {
    let variant = args.variant;
    if variant == Variant::ThreeKingdoms {
        return Ok(AnyGame::ThreeKingdoms(three_kingdoms::Game::new(three_kingdoms_position(args)?)));
    }
    let mut game = match (start_arg(args.preset.as_deref())?, variant) {
        (Some(start), Variant::Xiangqi) => BoardGame::from_named_start(start),
        (Some(_), _) => return Err(Failure::Message("handicap presets are Xiangqi's".into())),
        (None, _) => BoardGame::from_fen(variant, &args.fen).map_err(Failure::Message)?,
    };
    game.play_iccs(args.moves.split_whitespace()).map_err(|e| Failure::Message(e.to_string()))?;
    Ok(AnyGame::Board(game))
}

/// A Three Kingdoms position from `--fen` (a position text or `startpos`) and `--moves`
/// (point names).
fn three_kingdoms_position(args: &PositionArgs) -> Result<three_kingdoms::Position, Failure> {
    let mut pos = if args.fen.trim() == "startpos" {
        three_kingdoms::Position::startpos(!args.no_flag_bearers)
    } else {
        three_kingdoms::Position::from_text(&args.fen).map_err(|e| Failure::Message(e.to_string()))?
    };
    for (i, text) in args.moves.split_whitespace().enumerate() {
        let m = pos.parse_move(text).map_err(|e| Failure::Message(format!("move {} ({text}): {e}", i + 1)))?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

/// Perft (or divide) of any variant's position.
fn print_perft<P: GamePosition>(pos: &mut P, depth: u32, divide: bool) -> Result<(), Failure> {
    if divide {
        let mut total = 0;
        for (m, n) in perft::divide(pos, depth) {
            out!("{m}: {n}");
            total += n;
        }
        out!();
        out!("{total}");
    } else {
        out!("{}", perft::perft(pos, depth));
    }
    Ok(())
}
