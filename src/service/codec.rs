//! The codec of ListLegalMoves: it reads the request as usual and sends the response
//! bytes [`crate::api::wire::Writer`] wrote, unchanged.

use std::marker::PhantomData;

use prost::Message;
use prost::bytes::BufMut;
use tonic::Status;
use tonic::codec::{Codec, EncodeBuf, Encoder};
use tonic_prost::ProstDecoder;

use crate::api::wire::Encoded;

/// The codec of a unary call that reads its request as usual and sends an [`Encoded`]
/// response as it is.
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
    type Decoder = ProstDecoder<Request>;

    fn encoder(&mut self) -> EncodedEncoder {
        EncodedEncoder
    }

    fn decoder(&mut self) -> ProstDecoder<Request> {
        ProstDecoder::new(Default::default())
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
