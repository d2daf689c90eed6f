//! Compiles the API in proto/ with protox (pure Rust, no system protoc): message and
//! service code (prost, tonic), the canonical JSON mapping (pbjson) for `--json`, and
//! the descriptor set served by gRPC reflection.

use std::path::PathBuf;

use prost::Message;

const FILES: &[&str] = &[
    "chuhe/v1/common.proto",
    "chuhe/v1/rules.proto",
    "chuhe/v1/analysis.proto",
    "chuhe/v1/notation.proto",
    "chuhe/v1/jobs.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let fds = protox::compile(FILES, ["proto"])?;
    let bytes = fds.encode_to_vec();
    let descriptor_path = out.join("chuhe_descriptor.bin");
    std::fs::write(&descriptor_path, &bytes)?;
    // The generated servers and clients name the field of a request that does not decode
    // as the proto does (`position.moves[1]`), with the API's own codec.
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .codec_path("crate::api::codec::ApiCodec")
        .compile_fds(fds)?;
    pbjson_build::Builder::new().register_descriptors(&bytes)?.build(&[".chuhe"])?;
    Ok(())
}
