//! The codec of the generated servers and clients ([`ApiCodec`]): prost's encoding,
//! and a decoder that names the field of a message that does not decode as the proto
//! names it, found in the message's bytes ([`super::undecodable`]).

use std::marker::PhantomData;

use prost::Message;
use prost::bytes::Buf;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::{Code, Status};
use tonic_prost::ProstEncoder;
use tonic_types::{ErrorDetails, StatusExt};

use super::undecodable::{UNDECODABLE, field_in_request};

/// The codec of the generated servers and clients: prost's, but a message that does not
/// decode names its field by the proto's path.
pub struct ApiCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for ApiCodec<T, U> {
    fn default() -> Self {
        ApiCodec(PhantomData)
    }
}

impl<T: Message + Send + 'static, U: Message + Default + Send + 'static> Codec for ApiCodec<T, U> {
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = NamingDecoder<U>;

    fn encoder(&mut self) -> ProstEncoder<T> {
        ProstEncoder::new(BufferSettings::default())
    }

    fn decoder(&mut self) -> NamingDecoder<U> {
        NamingDecoder::default()
    }
}

/// Decodes a message as prost does. One that does not decode is INTERNAL, prost's report
/// its message, as tonic has it (the server's middleware makes it INVALID_ARGUMENT, the
/// request's fault), with a `google.rpc.BadRequest` naming the field by the proto's path
/// (`position.moves[1]`).
pub struct NamingDecoder<U>(PhantomData<U>);

impl<U> Default for NamingDecoder<U> {
    fn default() -> Self {
        NamingDecoder(PhantomData)
    }
}

impl<U: Message + Default> Decoder for NamingDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        // The buffer's bytes split off, not copied.
        let bytes = buf.copy_to_bytes(buf.remaining());
        U::decode(&bytes[..]).map(Some).map_err(|e| {
            let report = e.to_string();
            let (field, reason) = field_in_request(&bytes, report.strip_prefix(UNDECODABLE).unwrap_or(&report));
            Status::with_error_details(Code::Internal, report, ErrorDetails::with_bad_request_violation(field, reason))
        })
    }
}
