//! The net file: its layout (`CHUHENN1`, little-endian, see docs/engine.md), loading it
//! from bytes with every field checked, and writing it back.

use std::fmt;

use ring::digest;

use super::kernel::Kernel;

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"CHUHENN1";
/// The only version of the layout.
pub const VERSION: u32 = 1;
/// Inputs: 2 colours (ours, theirs) x 7 kinds x 90 points.
pub const INPUTS: usize = 1260;
/// The accumulator's width must be a multiple of this (the widest SIMD step).
pub const HIDDEN_STEP: usize = 16;
/// The widest accumulator a file may have.
pub const MAX_HIDDEN: usize = 1024;
/// The most output buckets a file may have.
pub const MAX_BUCKETS: usize = 16;
/// The activation's ceiling (the feature weights' scale), the kernels' own constant.
pub use super::kernel::QA;
/// The output weights' scale.
pub const QB: i32 = 64;
/// The magic and eight u32/i32 fields.
const HEADER_LEN: usize = 8 + 8 * 4;

/// The variant a net evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NetVariant {
    /// Xiangqi (code 0 in the file).
    Xiangqi,
    /// Janggi (code 1 in the file).
    Janggi,
}

impl NetVariant {
    /// The variant's code in the file.
    pub const fn code(self) -> u32 {
        match self {
            NetVariant::Xiangqi => 0,
            NetVariant::Janggi => 1,
        }
    }

    /// The variant's name, as the options and messages write it.
    pub const fn name(self) -> &'static str {
        match self {
            NetVariant::Xiangqi => "xiangqi",
            NetVariant::Janggi => "janggi",
        }
    }
}

/// What is wrong with a net file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetProblem {
    /// It could not be read (the I/O error's text).
    Unreadable(String),
    /// Shorter than its header.
    TruncatedHeader {
        /// The file's length.
        len: usize,
    },
    /// It does not start with `CHUHENN1`.
    BadMagic,
    /// A version other than 1.
    BadVersion(u32),
    /// A variant code other than the one expected.
    WrongVariant {
        /// The variant the net was loaded for.
        expected: NetVariant,
        /// The file's variant code.
        found: u32,
    },
    /// An input count other than 1260.
    BadInputs(u32),
    /// A hidden width that is not a multiple of 16 in 16..=1024.
    BadHidden(u32),
    /// A bucket count outside 1..=16.
    BadBuckets(u32),
    /// A `qa` or `qb` other than 255 and 64.
    BadScale {
        /// `qa` or `qb`.
        field: &'static str,
        /// The file's value.
        found: i32,
    },
    /// A non-positive `scale`.
    BadOutputScale(i32),
    /// The length differs from what the header implies.
    BadLength {
        /// The length the header implies.
        expected: usize,
        /// The file's length.
        found: usize,
    },
}

impl fmt::Display for NetProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetProblem::Unreadable(e) => write!(f, "cannot be read: {e}"),
            NetProblem::TruncatedHeader { len } => {
                write!(f, "truncated: {len} bytes, shorter than the {HEADER_LEN}-byte header")
            }
            NetProblem::BadMagic => write!(f, "not a chuhe net (the file does not start with CHUHENN1)"),
            NetProblem::BadVersion(v) => write!(f, "version {v}, only version {VERSION} is known"),
            NetProblem::WrongVariant { expected, found } => {
                write!(f, "variant code {found}, expected {} ({})", expected.code(), expected.name())
            }
            NetProblem::BadInputs(n) => write!(f, "{n} inputs, expected {INPUTS}"),
            NetProblem::BadHidden(h) => {
                write!(f, "hidden width {h}, expected a multiple of {HIDDEN_STEP} from {HIDDEN_STEP} to {MAX_HIDDEN}")
            }
            NetProblem::BadBuckets(b) => write!(f, "{b} output buckets, expected 1 to {MAX_BUCKETS}"),
            NetProblem::BadScale { field, found } => {
                let expected = if *field == "qa" { QA } else { QB };
                write!(f, "{field} {found}, expected {expected}")
            }
            NetProblem::BadOutputScale(s) => write!(f, "scale {s}, expected a positive number"),
            NetProblem::BadLength { expected, found } => {
                let what = if found < expected { "truncated" } else { "too long" };
                write!(f, "{what}: {found} bytes, the header implies {expected}")
            }
        }
    }
}

/// A net file that was refused: which file, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetError {
    /// The file's name as given (a path, or `<embedded xiangqi>`).
    pub file: String,
    /// What is wrong with it.
    pub problem: NetProblem,
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "net file {}: {}", self.file, self.problem)
    }
}

impl std::error::Error for NetError {}

/// A loaded net: its shape, its weights and its identity.
#[derive(Clone)]
pub struct Network {
    pub(super) variant: NetVariant,
    pub(super) hidden: usize,
    pub(super) buckets: usize,
    /// Evaluation units per unit of the float output.
    pub(super) scale: i32,
    /// `INPUTS x hidden`, feature-major.
    pub(super) feature_weights: Box<[i16]>,
    pub(super) feature_bias: Box<[i16]>,
    /// `buckets x 2 hidden`: the side to move's half first.
    pub(super) output_weights: Box<[i16]>,
    pub(super) output_bias: Box<[i32]>,
    /// Every output weight is within ±128, so `clamp(x) * w` fits an i16 (the SIMD
    /// output's shortcut).
    pub(super) output_fits_i16: bool,
    pub(super) kernel: Kernel,
    identity: String,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Network({} {} H={} B={})", self.identity, self.variant.name(), self.hidden, self.buckets)
    }
}

/// Reads the little-endian fields of a byte slice in order.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        out.copy_from_slice(&self.bytes[self.at..self.at + N]);
        self.at += N;
        out
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.take())
    }
    fn i16s(&mut self, n: usize) -> Box<[i16]> {
        (0..n).map(|_| i16::from_le_bytes(self.take())).collect()
    }
    fn i32s(&mut self, n: usize) -> Box<[i32]> {
        (0..n).map(|_| self.i32()).collect()
    }
}

/// The exact length of a file of this shape.
pub const fn file_len(hidden: usize, buckets: usize) -> usize {
    HEADER_LEN + 2 * (INPUTS * hidden + hidden + buckets * 2 * hidden) + 4 * buckets
}

impl Network {
    /// Reads a net for `variant` from the bytes of the file named `file` (the name
    /// goes into the error).
    pub fn from_bytes(bytes: &[u8], variant: NetVariant, file: &str) -> Result<Network, NetError> {
        Self::parse(bytes, variant).map_err(|problem| NetError { file: file.to_string(), problem })
    }

    /// Reads the net for `variant` from the file at `path`.
    pub fn from_file(path: &std::path::Path, variant: NetVariant) -> Result<Network, NetError> {
        let file = path.display().to_string();
        let bytes = std::fs::read(path)
            .map_err(|e| NetError { file: file.clone(), problem: NetProblem::Unreadable(e.to_string()) })?;
        Self::from_bytes(&bytes, variant, &file)
    }

    fn parse(bytes: &[u8], variant: NetVariant) -> Result<Network, NetProblem> {
        if bytes.len() < HEADER_LEN {
            return Err(if bytes.len() >= 8 && &bytes[..8] != MAGIC {
                NetProblem::BadMagic
            } else {
                NetProblem::TruncatedHeader { len: bytes.len() }
            });
        }
        let mut r = Reader { bytes, at: 0 };
        if &r.take::<8>() != MAGIC {
            return Err(NetProblem::BadMagic);
        }
        let version = r.u32();
        if version != VERSION {
            return Err(NetProblem::BadVersion(version));
        }
        let code = r.u32();
        if code != variant.code() {
            return Err(NetProblem::WrongVariant { expected: variant, found: code });
        }
        let inputs = r.u32();
        if inputs as usize != INPUTS {
            return Err(NetProblem::BadInputs(inputs));
        }
        let hidden = r.u32();
        if hidden == 0 || hidden as usize > MAX_HIDDEN || hidden as usize % HIDDEN_STEP != 0 {
            return Err(NetProblem::BadHidden(hidden));
        }
        let buckets = r.u32();
        if buckets == 0 || buckets as usize > MAX_BUCKETS {
            return Err(NetProblem::BadBuckets(buckets));
        }
        let (qa, qb, scale) = (r.i32(), r.i32(), r.i32());
        if qa != QA {
            return Err(NetProblem::BadScale { field: "qa", found: qa });
        }
        if qb != QB {
            return Err(NetProblem::BadScale { field: "qb", found: qb });
        }
        if scale <= 0 {
            return Err(NetProblem::BadOutputScale(scale));
        }
        let (hidden, buckets) = (hidden as usize, buckets as usize);
        let expected = file_len(hidden, buckets);
        if bytes.len() != expected {
            return Err(NetProblem::BadLength { expected, found: bytes.len() });
        }
        let feature_weights = r.i16s(INPUTS * hidden);
        let feature_bias = r.i16s(hidden);
        let output_weights = r.i16s(buckets * 2 * hidden);
        let output_bias = r.i32s(buckets);
        let output_fits_i16 = output_weights.iter().all(|w| w.unsigned_abs() <= 128);
        Ok(Network {
            variant,
            hidden,
            buckets,
            scale,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
            output_fits_i16,
            kernel: Kernel::detect(),
            identity: identity(bytes),
        })
    }

    /// The file's bytes (what [`Network::from_bytes`] reads back to an equal net).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(file_len(self.hidden, self.buckets));
        out.extend_from_slice(MAGIC);
        for v in [VERSION, self.variant.code(), INPUTS as u32, self.hidden as u32, self.buckets as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [QA, QB, self.scale] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for w in self.feature_weights.iter().chain(self.feature_bias.iter()).chain(self.output_weights.iter()) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in self.output_bias.iter() {
            out.extend_from_slice(&b.to_le_bytes());
        }
        out
    }

    /// `nnue-` and the first 16 hex digits of the SHA-256 of the file.
    pub fn identity(&self) -> &str {
        &self.identity
    }
    /// The variant it evaluates.
    pub fn variant(&self) -> NetVariant {
        self.variant
    }
    /// The accumulator's width per perspective.
    pub fn hidden(&self) -> usize {
        self.hidden
    }
    /// The number of output buckets.
    pub fn buckets(&self) -> usize {
        self.buckets
    }
    /// The SIMD kernel it computes with.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }
    /// The same net computing with `kernel` (which must be [`Kernel::available`]).
    pub fn with_kernel(mut self, kernel: Kernel) -> Network {
        assert!(kernel.available(), "{kernel:?} is not available on this processor");
        self.kernel = kernel;
        self
    }

    /// Feature `f`'s weights.
    #[inline(always)]
    pub(super) fn row(&self, f: usize) -> &[i16] {
        &self.feature_weights[f * self.hidden..(f + 1) * self.hidden]
    }
}

/// `nnue-` and the first 16 hex digits of the SHA-256 of `bytes`.
pub fn identity(bytes: &[u8]) -> String {
    let hash = digest::digest(&digest::SHA256, bytes);
    let hex: String = hash.as_ref()[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("nnue-{hex}")
}
