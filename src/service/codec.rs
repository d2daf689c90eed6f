//! The codecs of the API's calls. [`ApiCodec`], the generated servers' and clients':
//! prost's encoding, and a decoder that names the field of a message that does not
//! decode as the proto names it, found in the message's bytes
//! ([`crate::api::undecodable`]). [`EncodedCodec`], ListLegalMoves': it reads the
//! request the same way and sends the response bytes [`crate::api::wire::Writer`]
//! wrote, unchanged (a test's client sends its own bytes with it).

use std::marker::PhantomData;

use prost::Message;
use prost::bytes::{Buf, BufMut};
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::{Code, Status};
use tonic_prost::ProstEncoder;
use tonic_types::{ErrorDetails, StatusExt};

use crate::api::undecodable::{UNDECODABLE, field_in_request};
use crate::api::wire::Encoded;

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
        NamingDecoder(PhantomData)
    }
}

/// Decodes a message as prost does. One that does not decode is INTERNAL, prost's report
/// its message, as tonic has it (the server's middleware makes it INVALID_ARGUMENT, the
/// request's fault), with a `google.rpc.BadRequest` naming the field by the proto's path
/// (`position.moves[1]`).
pub struct NamingDecoder<U>(PhantomData<U>);

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

/// A codec that sends [`Encoded`] bytes as they are and reads the other side's message
/// as [`ApiCodec`] does: ListLegalMoves' (its response written by hand), or a client's
/// that sends bytes of its own.
pub struct EncodedCodec<Request>(PhantomData<Request>);

impl<Request> Default for EncodedCodec<Request> {
    fn default() -> Self {
        EncodedCodec(PhantomData)
    }
}

impl<Request: Message + Default + Send + 'static> Codec for EncodedCodec<Request> {
    type Encode = Encoded;
    type Decode = Request;
    type Encoder = EncodedEncoder;
    type Decoder = NamingDecoder<Request>;

    fn encoder(&mut self) -> EncodedEncoder {
        EncodedEncoder
    }

    fn decoder(&mut self) -> NamingDecoder<Request> {
        NamingDecoder(PhantomData)
    }
}

/// Sends a response already written as protobuf bytes.
pub struct EncodedEncoder;

impl Encoder for EncodedEncoder {
    type Item = Encoded;
    type Error = Status;

    fn encode(&mut self, item: Encoded, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        buf.put_slice(&item.0);
        Ok(())
    }
}
