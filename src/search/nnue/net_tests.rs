//! Loading net files: every malformed shape is refused with its problem and the
//! file's name, and a good file reads back to the same bytes.

use super::net::{HIDDEN_STEP, INPUTS, NetError, NetProblem, NetVariant, Network, file_len};
use super::random::{Ranges, net_file};

const NAME: &str = "test.nnue";

fn good(variant: NetVariant) -> Vec<u8> {
    net_file(variant, 32, 3, 400, 7, Ranges::TYPICAL)
}

fn problem(bytes: &[u8], variant: NetVariant) -> NetProblem {
    let e: NetError = Network::from_bytes(bytes, variant, NAME).unwrap_err();
    assert_eq!(e.file, NAME);
    assert!(e.to_string().starts_with("net file test.nnue: "), "{e}");
    e.problem
}

/// `bytes` with the u32 field at `offset` set to `v`.
fn with_u32(mut bytes: Vec<u8>, offset: usize, v: u32) -> Vec<u8> {
    bytes[offset..offset + 4].copy_from_slice(&v.to_le_bytes());
    bytes
}

#[test]
fn a_good_file_loads_and_writes_back_the_same_bytes() {
    let bytes = good(NetVariant::Janggi);
    let net = Network::from_bytes(&bytes, NetVariant::Janggi, NAME).unwrap();
    assert_eq!((net.hidden(), net.buckets(), net.variant()), (32, 3, NetVariant::Janggi));
    assert_eq!(net.to_bytes(), bytes);
    assert_eq!(bytes.len(), file_len(32, 3));
}

#[test]
fn the_identity_is_the_start_of_the_sha256_of_the_contents() {
    let net = Network::from_bytes(&good(NetVariant::Xiangqi), NetVariant::Xiangqi, NAME).unwrap();
    let id = net.identity();
    assert_eq!(id.len(), "nnue-".len() + 16);
    assert!(id.starts_with("nnue-") && id[5..].chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    // SHA-256 of the empty input starts e3b0c44298fc1c14.
    assert_eq!(super::net::identity(b""), "nnue-e3b0c44298fc1c14");
    let other = net_file(NetVariant::Xiangqi, 32, 3, 400, 8, Ranges::TYPICAL);
    assert_ne!(Network::from_bytes(&other, NetVariant::Xiangqi, NAME).unwrap().identity(), id);
}

#[test]
fn truncated_files_are_refused() {
    let bytes = good(NetVariant::Xiangqi);
    assert_eq!(problem(&bytes[..20], NetVariant::Xiangqi), NetProblem::TruncatedHeader { len: 20 });
    assert_eq!(problem(&[], NetVariant::Xiangqi), NetProblem::TruncatedHeader { len: 0 });
    let n = bytes.len();
    assert_eq!(problem(&bytes[..n - 1], NetVariant::Xiangqi), NetProblem::BadLength { expected: n, found: n - 1 });
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(problem(&longer, NetVariant::Xiangqi), NetProblem::BadLength { expected: n, found: n + 1 });
    assert!(problem(&bytes[..n - 1], NetVariant::Xiangqi).to_string().starts_with("truncated"));
}

#[test]
fn a_wrong_magic_version_or_variant_is_refused() {
    let mut bytes = good(NetVariant::Xiangqi);
    bytes[0] = b'X';
    assert_eq!(problem(&bytes, NetVariant::Xiangqi), NetProblem::BadMagic);
    assert_eq!(problem(b"PK\x03\x04 not a net", NetVariant::Xiangqi), NetProblem::BadMagic);
    let bytes = with_u32(good(NetVariant::Xiangqi), 8, 3);
    assert_eq!(problem(&bytes, NetVariant::Xiangqi), NetProblem::BadVersion(3));
    let first = problem(&with_u32(good(NetVariant::Xiangqi), 8, 1), NetVariant::Xiangqi);
    assert_eq!(first, NetProblem::BadVersion(1));
    assert!(first.to_string().contains("no checksum"), "{first}");
    assert_eq!(
        problem(&good(NetVariant::Xiangqi), NetVariant::Janggi),
        NetProblem::WrongVariant { expected: NetVariant::Janggi, found: 0 }
    );
}

#[test]
fn a_wrong_shape_is_refused() {
    let bytes = with_u32(good(NetVariant::Xiangqi), 16, INPUTS as u32 + 1);
    assert_eq!(problem(&bytes, NetVariant::Xiangqi), NetProblem::BadInputs(INPUTS as u32 + 1));
    for h in [0, 8, HIDDEN_STEP as u32 + 1, 1040] {
        let bytes = with_u32(good(NetVariant::Xiangqi), 20, h);
        assert_eq!(problem(&bytes, NetVariant::Xiangqi), NetProblem::BadHidden(h));
    }
    for b in [0, 17] {
        let bytes = with_u32(good(NetVariant::Xiangqi), 24, b);
        assert_eq!(problem(&bytes, NetVariant::Xiangqi), NetProblem::BadBuckets(b));
    }
    // A header that says 64 lanes over a body of 32.
    let bytes = with_u32(good(NetVariant::Xiangqi), 20, 64);
    assert!(matches!(problem(&bytes, NetVariant::Xiangqi), NetProblem::BadLength { .. }));
    let bytes = with_u32(good(NetVariant::Xiangqi), 28, 256);
    assert_eq!(problem(&bytes, NetVariant::Xiangqi), NetProblem::BadScale { field: "qa", found: 256 });
    let bytes = with_u32(good(NetVariant::Xiangqi), 32, 1);
    assert_eq!(problem(&bytes, NetVariant::Xiangqi), NetProblem::BadScale { field: "qb", found: 1 });
    let bytes = with_u32(good(NetVariant::Xiangqi), 36, 0);
    assert_eq!(problem(&bytes, NetVariant::Xiangqi), NetProblem::BadOutputScale(0));
}

#[test]
fn every_allowed_shape_loads() {
    for (h, b) in [(16, 1), (1024, 16), (256, 8)] {
        let bytes = net_file(NetVariant::Xiangqi, h, b, 400, 1, Ranges::TYPICAL);
        let net = Network::from_bytes(&bytes, NetVariant::Xiangqi, NAME).unwrap();
        assert_eq!((net.hidden(), net.buckets()), (h, b));
    }
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let e = Network::from_file(std::path::Path::new("/nonexistent/x.nnue"), NetVariant::Xiangqi).unwrap_err();
    assert_eq!(e.file, "/nonexistent/x.nnue");
    assert!(matches!(e.problem, NetProblem::Unreadable(_)), "{e}");
}

#[test]
fn a_damaged_file_fails_its_checksum() {
    let bytes = good(NetVariant::Xiangqi);
    let n = bytes.len();
    // The last output bias and a few weights before it: the net would load and play.
    let mut damaged = bytes.clone();
    for b in &mut damaged[n - 32 - 64..n - 32] {
        *b ^= 0x55;
    }
    assert_eq!(problem(&damaged, NetVariant::Xiangqi), NetProblem::BadChecksum);
    let mut damaged = bytes.clone();
    damaged[n - 1] ^= 1;
    assert_eq!(problem(&damaged, NetVariant::Xiangqi), NetProblem::BadChecksum);
    let mut damaged = bytes;
    damaged[100] ^= 1;
    let e = Network::from_bytes(&damaged, NetVariant::Xiangqi, NAME).unwrap_err();
    assert_eq!(e.to_string(), "net file test.nnue: damaged: its checksum (SHA-256) does not match its contents");
}

#[test]
fn the_largest_shape_is_the_bound() {
    let bytes = net_file(NetVariant::Xiangqi, 1024, 16, 400, 1, Ranges::TYPICAL);
    assert_eq!(bytes.len(), super::net::MAX_FILE_LEN);
}
