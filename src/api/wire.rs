//! Responses the service writes as protobuf bytes itself, for the call where building
//! the message costs more than the call: a move list is some 44 `Move` messages with a
//! string each, allocated, encoded and freed again, where writing the same bytes from
//! the moves takes a fraction of that. A small writer of the wire format; the service
//! that sends what it wrote unchanged ([`crate::service`]'s codec).

use prost::Message;

/// A response message already in its wire form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoded(pub Vec<u8>);

impl Encoded {
    /// The message decoded, as a client reads it.
    pub fn decode<M: Message + Default>(&self) -> Result<M, prost::DecodeError> {
        M::decode(self.0.as_slice())
    }
}

/// Writes protobuf fields in the proto3 way: a scalar at its default value is left
/// out, a message field that is set is written even when empty.
#[derive(Default)]
pub struct Writer {
    buf: Vec<u8>,
}

/// Wire types of the field keys written here.
pub const VARINT: u8 = 0;
/// The wire type of a length-delimited field (bytes, strings, messages).
pub const LENGTH_DELIMITED: u8 = 2;

impl Writer {
    /// A writer with room for `bytes` bytes.
    pub fn with_capacity(bytes: usize) -> Writer {
        Writer { buf: Vec::with_capacity(bytes) }
    }

    /// The bytes written.
    pub fn finish(self) -> Encoded {
        Encoded(self.buf)
    }

    /// prost's varint, with the one-byte case (nearly every value here) inline.
    #[inline]
    fn varint(&mut self, v: u64) {
        if v < 0x80 {
            self.buf.push(v as u8);
        } else {
            prost::encoding::encode_varint(v, &mut self.buf);
        }
    }

    #[inline]
    fn key(&mut self, field: u32, wire_type: u8) {
        self.varint(u64::from(field) << 3 | u64::from(wire_type));
    }

    /// An unsigned integer, an enum value or a bool (as 0 or 1).
    #[inline]
    pub fn uint(&mut self, field: u32, v: u64) {
        if v != 0 {
            self.key(field, VARINT);
            self.varint(v);
        }
    }

    /// A string or bytes field.
    #[inline]
    pub fn bytes(&mut self, field: u32, v: &[u8]) {
        if !v.is_empty() {
            self.key(field, LENGTH_DELIMITED);
            self.varint(v.len() as u64);
            self.buf.extend_from_slice(v);
        }
    }

    /// A message field whose fields `body` writes.
    #[inline]
    pub fn message(&mut self, field: u32, body: impl FnOnce(&mut Writer)) {
        self.key(field, LENGTH_DELIMITED);
        // One byte for the length, which is enough for most messages written here;
        // a longer body is moved up to make room.
        let at = self.buf.len();
        self.buf.push(0);
        body(self);
        let len = self.buf.len() - at - 1;
        if len < 0x80 {
            self.buf[at] = len as u8;
        } else {
            let mut prefix = Vec::with_capacity(prost::encoding::encoded_len_varint(len as u64));
            prost::encoding::encode_varint(len as u64, &mut prefix);
            self.buf.splice(at..at + 1, prefix);
        }
    }

    /// The first `len` of `fields`, bytes already in wire form (whole fields). The
    /// array is copied whole and the rest cut off again, so that a short copy of a
    /// known size takes a few moves instead of a call to memcpy.
    #[inline]
    pub fn raw<const N: usize>(&mut self, fields: &[u8; N], len: usize) {
        let end = self.buf.len() + len.min(N);
        self.buf.extend_from_slice(fields);
        self.buf.truncate(end);
    }

    /// A message field given as a generated message.
    pub fn prost_message(&mut self, field: u32, m: &impl Message) {
        prost::encoding::message::encode(field, m, &mut self.buf);
    }
}
