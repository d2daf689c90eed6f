//! Generated API types (`chuhe.v1`) with their canonical JSON mapping.

#![allow(clippy::all, missing_docs)]

tonic::include_proto!("chuhe.v1");
include!(concat!(env!("OUT_DIR"), "/chuhe.v1.serde.rs"));

/// The encoded descriptor set of the API, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/chuhe_descriptor.bin"));
