//! Reading a message's protobuf bytes one level at a time: each field's number and value
//! as it lies on the wire, a length-delimited value (a string, bytes, a message, a
//! packed list) as its bytes unread, until the bytes stop making sense. What prost
//! refuses at a message's own level (a varint of more than ten bytes, a key beyond 32
//! bits, a wire type beyond 5, field number 0, a length or a group that runs past the
//! end) ends the reading here too, so that a reader can find where a message breaks.

/// A field's value as the wire gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireValue<'a> {
    /// Wire type 0: an integer, a bool or an enum value.
    Varint(u64),
    /// Wire type 1: eight bytes (fixed64, sfixed64, double).
    Fixed64,
    /// Wire type 2: a string, bytes, a message or a packed list, unread.
    LengthDelimited(&'a [u8]),
    /// Wire types 3 and 4: a group, its fields unread.
    Group(&'a [u8]),
    /// Wire type 5: four bytes (fixed32, sfixed32, float).
    Fixed32,
}

/// One field as the wire gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireField<'a> {
    /// The field's number.
    pub number: u32,
    /// Its value.
    pub value: WireValue<'a>,
}

/// Where the bytes stop making sense: in the value of the field numbered `number`, or
/// in a key (`None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Broken {
    /// The field whose value is cut or malformed, when its key was read.
    pub number: Option<u32>,
}

/// The fields of a message's bytes, in order; after a [`Broken`] there is no more.
pub struct WireFields<'a> {
    rest: &'a [u8],
    broken: bool,
}

/// The fields of `bytes`, one message's level.
pub fn wire_fields(bytes: &[u8]) -> WireFields<'_> {
    WireFields { rest: bytes, broken: false }
}

impl<'a> Iterator for WireFields<'a> {
    type Item = Result<WireField<'a>, Broken>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() || self.broken {
            return None;
        }
        let field = self.field();
        self.broken = field.is_err();
        Some(field)
    }
}

/// The wire type of a group's end.
const END_GROUP: u64 = 4;

impl<'a> WireFields<'a> {
    fn field(&mut self) -> Result<WireField<'a>, Broken> {
        let (number, wire_type) = key(&mut self.rest).ok_or(Broken { number: None })?;
        let broken = Broken { number: Some(number) };
        let value = match wire_type {
            0 => WireValue::Varint(varint(&mut self.rest).ok_or(broken)?),
            1 => {
                take(&mut self.rest, 8).ok_or(broken)?;
                WireValue::Fixed64
            }
            2 => {
                let len = varint(&mut self.rest).ok_or(broken)?;
                let len = usize::try_from(len).map_err(|_| broken)?;
                WireValue::LengthDelimited(take(&mut self.rest, len).ok_or(broken)?)
            }
            3 => WireValue::Group(group(&mut self.rest, number).ok_or(broken)?),
            5 => {
                take(&mut self.rest, 4).ok_or(broken)?;
                WireValue::Fixed32
            }
            // An end of group with no group open.
            _ => return Err(broken),
        };
        Ok(WireField { number, value })
    }
}

/// A key: the field number (1 and up) and the wire type (0 to 5).
fn key(bytes: &mut &[u8]) -> Option<(u32, u64)> {
    let key = u32::try_from(varint(bytes)?).ok()?;
    let (number, wire_type) = (key >> 3, u64::from(key & 7));
    (number > 0 && wire_type <= 5).then_some((number, wire_type))
}

/// A varint of at most ten bytes whose tenth holds only the 64th bit, as prost reads it.
fn varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..10 {
        let &b = bytes.get(i)?;
        if i == 9 && b > 1 {
            return None;
        }
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            *bytes = &bytes[i + 1..];
            return Some(value);
        }
    }
    None
}

fn take<'a>(bytes: &mut &'a [u8], len: usize) -> Option<&'a [u8]> {
    if len > bytes.len() {
        return None;
    }
    let (taken, rest) = bytes.split_at(len);
    *bytes = rest;
    Some(taken)
}

/// The fields of the group `number` opened just before `bytes`, up to its end, which is
/// read too. Nested groups are followed by a count, not a recursion, so that no input
/// runs the stack out.
fn group<'a>(bytes: &mut &'a [u8], number: u32) -> Option<&'a [u8]> {
    let start = *bytes;
    let mut open = vec![number];
    loop {
        let before = bytes.len();
        let (n, wire_type) = key(bytes)?;
        match wire_type {
            0 => {
                varint(bytes)?;
            }
            1 => {
                take(bytes, 8)?;
            }
            2 => {
                let len = usize::try_from(varint(bytes)?).ok()?;
                take(bytes, len)?;
            }
            3 => open.push(n),
            END_GROUP => {
                if open.pop() != Some(n) {
                    return None;
                }
                if open.is_empty() {
                    return Some(&start[..start.len() - before]);
                }
            }
            _ => {
                take(bytes, 4)?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Vec<Result<WireField<'_>, Broken>> {
        wire_fields(bytes).collect()
    }

    #[test]
    fn fields_read_in_order_with_their_values() {
        // 1: varint 300; 2: "ab"; 3: a group holding 1: 7; 5: fixed32; 6: fixed64.
        let bytes = [
            0x08, 0xac, 0x02, 0x12, 0x02, b'a', b'b', 0x1b, 0x08, 0x07, 0x1c, 0x2d, 1, 2, 3, 4, 0x31, 1, 2, 3, 4, 5, 6,
            7, 8,
        ];
        let fields: Vec<WireField> = read(&bytes).into_iter().map(Result::unwrap).collect();
        let values: Vec<(u32, WireValue)> = fields.iter().map(|f| (f.number, f.value)).collect();
        assert_eq!(
            values,
            vec![
                (1, WireValue::Varint(300)),
                (2, WireValue::LengthDelimited(b"ab")),
                (3, WireValue::Group(&[0x08, 0x07])),
                (5, WireValue::Fixed32),
                (6, WireValue::Fixed64),
            ]
        );
    }

    #[test]
    fn reading_stops_where_the_bytes_break() {
        let cut_string = [0x08, 0x01, 0x12, 0x05, b'a'];
        assert_eq!(read(&cut_string)[1], Err(Broken { number: Some(2) }));
        assert_eq!(read(&cut_string).len(), 2);
        assert_eq!(read(&[0x00, 0x01]), vec![Err(Broken { number: None })], "field number 0");
        assert_eq!(read(&[0x0e]), vec![Err(Broken { number: None })], "wire type 6");
        assert_eq!(read(&[0x0c]), vec![Err(Broken { number: Some(1) })], "an end of no group");
        let long_varint = [0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(read(&long_varint), vec![Err(Broken { number: Some(1) })]);
        assert_eq!(read(&[0x1b, 0x08, 0x07]), vec![Err(Broken { number: Some(3) })], "a group never closed");
        assert_eq!(read(&[0x1b, 0x24]), vec![Err(Broken { number: Some(3) })], "a group closed by another");
        let deep: Vec<u8> = std::iter::repeat_n(0x1b, 100_000).collect();
        assert_eq!(read(&deep), vec![Err(Broken { number: Some(3) })], "deep groups do not recurse");
    }
}
