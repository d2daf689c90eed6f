//! ListLegalMoves' codec, [`EncodedCodec`]: it reads the request as the generated
//! servers' codec does ([`crate::api::codec`]) and sends the response bytes
//! [`crate::api::wire::Writer`] wrote, unchanged (a test's client sends its own bytes
//! with it).

use std::marker::PhantomData;

use prost::Message;
use prost::bytes::BufMut;
use tonic::Status;
use tonic::codec::{Codec, EncodeBuf, Encoder};

use crate::api::codec::NamingDecoder;
use crate::api::wire::Encoded;

/// A codec that sends [`Encoded`] bytes as they are and reads the other side's message
/// as [`crate::api::codec::ApiCodec`] does: ListLegalMoves' (its response written by hand), or a client's
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
        NamingDecoder::default()
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
