//! Which evaluation searches use: the classical one, or a net per variant.

use std::path::Path;
use std::sync::Arc;

use super::embedded;
use super::net::{NetError, NetVariant, Network};

/// The evaluation of each 9x10 variant: whether the net is used, and the net of each
/// variant (embedded unless a file replaced it).
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// Evaluate every variant with its net (true) or classically (false); none: each
    /// variant as [`embedded::nnue_by_default`] says.
    pub use_nnue: Option<bool>,
    nets: [Arc<Network>; 2],
}

impl Default for Evaluation {
    /// The embedded nets, each used if [`embedded::nnue_by_default`] says so.
    fn default() -> Self {
        Evaluation {
            use_nnue: None,
            nets: [embedded::network(NetVariant::Xiangqi), embedded::network(NetVariant::Janggi)],
        }
    }
}

impl Evaluation {
    /// The embedded nets, used by every variant or by none.
    pub fn embedded(use_nnue: bool) -> Evaluation {
        Evaluation { use_nnue: Some(use_nnue), ..Evaluation::default() }
    }

    /// Whether searches of `variant` evaluate with its net.
    pub fn uses_nnue(&self, variant: NetVariant) -> bool {
        self.use_nnue.unwrap_or_else(|| embedded::nnue_by_default(variant))
    }

    /// Replaces `variant`'s net by the file at `path`; a file that cannot be read or
    /// is refused leaves the current net in place.
    pub fn load(&mut self, variant: NetVariant, path: &Path) -> Result<(), NetError> {
        self.nets[variant.code() as usize] = Arc::new(Network::from_file(path, variant)?);
        Ok(())
    }

    /// Puts `net` in its variant's place.
    pub fn set(&mut self, net: Arc<Network>) {
        let slot = net.variant().code() as usize;
        self.nets[slot] = net;
    }

    /// `variant`'s net, used or not.
    pub fn network(&self, variant: NetVariant) -> &Arc<Network> {
        &self.nets[variant.code() as usize]
    }

    /// The net searches of `variant` evaluate with; `None`: the classical evaluation.
    pub fn net_for(&self, variant: NetVariant) -> Option<Arc<Network>> {
        self.uses_nnue(variant).then(|| self.network(variant).clone())
    }

    /// What evaluates `variant`: `classical`, or the net's identity.
    pub fn name(&self, variant: NetVariant) -> String {
        name(self.net_for(variant).as_deref())
    }
}

/// The name of the evaluation by `net`: `classical` without one, else its identity.
pub fn name(net: Option<&Network>) -> String {
    net.map_or_else(|| "classical".to_string(), |n| n.identity().to_string())
}
