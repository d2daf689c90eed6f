//! The net file: its layout (`CHUHENN1`, little-endian, see docs/engine.md), loading it
//! from bytes or a file with every field and its checksum checked, and writing it back.

use std::fmt;
use std::io::Read;

use ring::digest;

use super::kernel::Kernel;

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"CHUHENN1";
/// The version of the layout this build reads and writes: version 1 had no checksum.
pub const VERSION: u32 = 2;
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
/// The SHA-256 of everything before it, at the end of the file.
const CHECKSUM_LEN: usize = 32;
/// The largest file of an allowed shape (2,648,200 bytes): a longer file is refused
/// from its size alone, before it is read.
pub const MAX_FILE_LEN: usize = file_len(MAX_HIDDEN, MAX_BUCKETS);

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
    /// Not a regular file (a device, a pipe, a directory): never read.
    NotAFile,
    /// Longer than any allowed shape: never read.
    TooLong {
        /// The file's length.
        len: u64,
    },
    /// The checksum at its end is not the SHA-256 of the rest: the file was damaged.
    BadChecksum,
}

impl fmt::Display for NetProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetProblem::Unreadable(e) => write!(f, "cannot be read: {e}"),
            NetProblem::TruncatedHeader { len } => {
                write!(f, "truncated: {len} bytes, shorter than the {HEADER_LEN}-byte header")
            }
            NetProblem::BadMagic => write!(f, "not a chuhe net (the file does not start with CHUHENN1)"),
            NetProblem::BadVersion(1) => {
                write!(f, "version 1, which had no checksum; this build reads version {VERSION}: export the net again")
            }
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
            NetProblem::NotAFile => write!(f, "not a regular file"),
            NetProblem::TooLong { len } => {
                write!(f, "too long: {len} bytes, the largest net file is {MAX_FILE_LEN}")
            }
            NetProblem::BadChecksum => write!(f, "damaged: its checksum (SHA-256) does not match its contents"),
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
    HEADER_LEN + 2 * (INPUTS * hidden + hidden + buckets * 2 * hidden) + 4 * buckets + CHECKSUM_LEN
}

/// The header of a file of this shape, to which a writer appends the weights, then
/// [`seal`]s it.
pub fn header(variant: NetVariant, hidden: usize, buckets: usize, scale: i32) -> Vec<u8> {
    let mut out = Vec::with_capacity(file_len(hidden, buckets));
    out.extend_from_slice(MAGIC);
    for v in [VERSION, variant.code(), INPUTS as u32, hidden as u32, buckets as u32] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in [QA, QB, scale] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// `contents` (a header and its weights) with its checksum appended: a whole file.
pub fn seal(mut contents: Vec<u8>) -> Vec<u8> {
    let hash = digest::digest(&digest::SHA256, &contents);
    contents.extend_from_slice(hash.as_ref());
    contents
}

/// What a file's header says, checked.
struct Shape {
    hidden: usize,
    buckets: usize,
    scale: i32,
}

impl Shape {
    /// The shape of the header at the start of `bytes` (the rest is not looked at).
    fn of(bytes: &[u8], variant: NetVariant) -> Result<Shape, NetProblem> {
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
        Ok(Shape { hidden: hidden as usize, buckets: buckets as usize, scale })
    }
}

impl Network {
    /// Reads a net for `variant` from the bytes of the file named `file` (the name
    /// goes into the error).
    pub fn from_bytes(bytes: &[u8], variant: NetVariant, file: &str) -> Result<Network, NetError> {
        Self::parse(bytes, variant).map_err(|problem| NetError { file: file.to_string(), problem })
    }

    /// Reads the net for `variant` from the file at `path`: a regular file no longer
    /// than [`MAX_FILE_LEN`] whose header implies its length, read no further than
    /// that (a device, a pipe or a huge file costs nothing).
    pub fn from_file(path: &std::path::Path, variant: NetVariant) -> Result<Network, NetError> {
        let name = path.display().to_string();
        let fail = |problem| NetError { file: name.clone(), problem };
        let unreadable = |e: std::io::Error| fail(NetProblem::Unreadable(e.to_string()));
        // Looked at before it is opened: opening a FIFO would wait for a writer.
        if !std::fs::metadata(path).map_err(unreadable)?.is_file() {
            return Err(fail(NetProblem::NotAFile));
        }
        let file = std::fs::File::open(path).map_err(unreadable)?;
        let opened = file.metadata().map_err(unreadable)?;
        if !opened.is_file() {
            return Err(fail(NetProblem::NotAFile));
        }
        if opened.len() > MAX_FILE_LEN as u64 {
            return Err(fail(NetProblem::TooLong { len: opened.len() }));
        }
        // The header first: a file whose size is not what it implies is not read on.
        let mut bytes = Vec::with_capacity(opened.len() as usize);
        let mut file = file.take(MAX_FILE_LEN as u64 + 1);
        file.by_ref().take(HEADER_LEN as u64).read_to_end(&mut bytes).map_err(unreadable)?;
        let shape = Shape::of(&bytes, variant).map_err(fail)?;
        let expected = file_len(shape.hidden, shape.buckets);
        if opened.len() != expected as u64 {
            return Err(fail(NetProblem::BadLength { expected, found: opened.len() as usize }));
        }
        // One byte beyond the bound shows a file that grew since it was looked at.
        file.read_to_end(&mut bytes).map_err(unreadable)?;
        Self::from_bytes(&bytes, variant, &name)
    }

    fn parse(bytes: &[u8], variant: NetVariant) -> Result<Network, NetProblem> {
        let Shape { hidden, buckets, scale } = Shape::of(bytes, variant)?;
        let expected = file_len(hidden, buckets);
        if bytes.len() != expected {
            return Err(NetProblem::BadLength { expected, found: bytes.len() });
        }
        let mut r = Reader { bytes, at: HEADER_LEN };
        let (contents, checksum) = bytes.split_at(expected - CHECKSUM_LEN);
        if digest::digest(&digest::SHA256, contents).as_ref() != checksum {
            return Err(NetProblem::BadChecksum);
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
        let mut out = header(self.variant, self.hidden, self.buckets, self.scale);
        for w in self.feature_weights.iter().chain(self.feature_bias.iter()).chain(self.output_weights.iter()) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in self.output_bias.iter() {
            out.extend_from_slice(&b.to_le_bytes());
        }
        seal(out)
    }

    /// `nnue-` and the first 16 hex digits of the SHA-256 of the file's contents (its
    /// checksum).
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

/// `nnue-` and the first 16 hex digits of the SHA-256 of the contents of `file` (all
/// but its checksum).
pub fn identity(file: &[u8]) -> String {
    let contents = &file[..file.len().saturating_sub(CHECKSUM_LEN)];
    let hash = digest::digest(&digest::SHA256, contents);
    let hex: String = hash.as_ref()[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("nnue-{hex}")
}
