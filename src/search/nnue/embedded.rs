//! The nets built into the binary, so that no file is needed to run.
//!
//! The files in `nets/` are the nets `chuhe train` wrote from `chuhe datagen`'s
//! self-play (docs/engine.md, "Rebuilding the net"); the placeholders of random
//! weights ([`placeholder`], from the seeds below) stand in when [`PLACEHOLDER`] is
//! set. A variant's net is its default evaluation ([`nnue_by_default`]) once it beats
//! the classical evaluation in a match.

use std::sync::{Arc, OnceLock};

use super::net::{NetVariant, Network};

static XIANGQI: &[u8] = include_bytes!("nets/xiangqi.nnue");
static JANGGI: &[u8] = include_bytes!("nets/janggi.nnue");

/// Do searches of `variant` evaluate with its net unless told otherwise? Yes for every
/// variant whose embedded net beat the classical evaluation in a match (docs/engine.md,
/// "The shipped nets"): both do, unless the embedded nets are the placeholders.
pub fn nnue_by_default(_variant: NetVariant) -> bool {
    !PLACEHOLDER
}

/// Are the embedded nets the placeholders [`placeholder`] writes?
pub const PLACEHOLDER: bool = false;

/// The placeholders' shape and seeds.
const PLACEHOLDER_HIDDEN: usize = 16;
const PLACEHOLDER_BUCKETS: usize = 1;
const PLACEHOLDER_SEEDS: [u64; 2] = [0x4348_5548_4500_0000, 0x4348_5548_4500_0001];

/// The name of the embedded net of `variant`, in messages.
pub fn name(variant: NetVariant) -> String {
    format!("<embedded {}>", variant.name())
}

/// The embedded net of `variant`, read once.
pub fn network(variant: NetVariant) -> Arc<Network> {
    static NETS: [OnceLock<Arc<Network>>; 2] = [OnceLock::new(), OnceLock::new()];
    let bytes = match variant {
        NetVariant::Xiangqi => XIANGQI,
        NetVariant::Janggi => JANGGI,
    };
    NETS[variant.code() as usize]
        .get_or_init(|| {
            let net = Network::from_bytes(bytes, variant, &name(variant));
            // The tests load both embedded nets: a bad one never ships.
            Arc::new(net.unwrap_or_else(|e| panic!("{e}")))
        })
        .clone()
}

/// The bytes of the placeholder net of `variant`.
pub fn placeholder(variant: NetVariant) -> Vec<u8> {
    let seed = PLACEHOLDER_SEEDS[variant.code() as usize];
    super::random::net_file(variant, PLACEHOLDER_HIDDEN, PLACEHOLDER_BUCKETS, 400, seed, super::random::Ranges::TYPICAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VARIANTS: [NetVariant; 2] = [NetVariant::Xiangqi, NetVariant::Janggi];

    #[test]
    fn embedded_nets_load_for_their_variant() {
        for v in VARIANTS {
            assert_eq!(network(v).variant(), v);
            assert!(network(v).identity().starts_with("nnue-"));
        }
    }

    #[test]
    fn placeholders_are_what_the_seeds_write() {
        if PLACEHOLDER {
            assert_eq!(XIANGQI, placeholder(NetVariant::Xiangqi).as_slice());
            assert_eq!(JANGGI, placeholder(NetVariant::Janggi).as_slice());
        }
    }

    /// Writes the placeholder nets: `cargo test --lib nnue::embedded -- --ignored`.
    #[test]
    #[ignore = "writes src/search/nnue/nets/*.nnue; run by hand to make the placeholders"]
    fn write_placeholders() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/search/nnue/nets");
        for v in VARIANTS {
            std::fs::write(dir.join(format!("{}.nnue", v.name())), placeholder(v)).unwrap();
        }
    }
}
