//! A request that does not decode, its field named as the proto names it: the path from
//! the request (`position.moves[1]`, `move`), each repeated field with the index of the
//! element that does not decode.
//!
//! prost reports the (message, field) pairs it was in when it failed, by the generated
//! code's names (`ValidateMoveRequest.r#move`, a Rust identifier) and without the index
//! of a repeated element. The pairs say which field; the request's bytes, read with the
//! API's descriptors, say which occurrence of it: the first one that breaks as prost
//! saw it break (prost stops at the first fault). Where the bytes do not show it, the
//! path has the fields' names without indices.

use std::collections::HashMap;
use std::sync::OnceLock;

use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorSet};

use super::wire_fields::{Broken, WireValue, wire_fields};

/// The start of prost's report of a message that does not decode.
pub const UNDECODABLE: &str = "failed to decode Protobuf message: ";

/// One pair of prost's report, as the generated code names them.
struct Step<'a> {
    message: &'a str,
    field: &'a str,
}

/// prost's report (what follows [`UNDECODABLE`]) read: its pairs from the request
/// inwards, and the reason. The report writes the innermost pair first:
/// `Position.moves: ValidateMoveRequest.position: invalid string value: ...`.
fn read_report(report: &str) -> (Vec<Step<'_>>, &str) {
    let identifier = |name: &str| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut steps = Vec::new();
    let mut rest = report;
    while let Some((step, after)) = rest.split_once(": ")
        && let Some((message, field)) = step.split_once('.')
        && identifier(message)
        && identifier(field.strip_prefix("r#").unwrap_or(field))
    {
        steps.push(Step { message, field });
        rest = after;
    }
    steps.reverse();
    (steps, rest)
}

/// A field's name in the proto: the generated code writes a Rust keyword raw (`r#move`).
fn proto_name(rust_field: &str) -> &str {
    rust_field.strip_prefix("r#").unwrap_or(rust_field)
}

/// The field path and the reason of prost's `report` alone, without the message's
/// bytes: the fields' names, no index (`position.moves`); none when the message itself
/// is broken.
pub fn field_of_report(report: &str) -> (String, String) {
    let (steps, reason) = read_report(report);
    (names(&steps), reason.to_string())
}

fn names(steps: &[Step]) -> String {
    steps.iter().map(|s| proto_name(s.field)).collect::<Vec<_>>().join(".")
}

/// The field path and the reason of prost's `report` of the request whose bytes are
/// `bytes`: with the index of each repeated element, where the bytes show it.
pub fn field_in_request(bytes: &[u8], report: &str) -> (String, String) {
    let (steps, reason) = read_report(report);
    let located = steps.first().and_then(|first| {
        let api = descriptors();
        let mut path = Vec::new();
        locate(api, api.request(first.message)?, bytes, &steps, &mut Seen::default(), &mut path).then(|| path.join("."))
    });
    (located.unwrap_or_else(|| names(&steps)), reason.to_string())
}

/// The API's messages by their full names (`.chuhe.v1.Position`), and its requests'
/// (the top-level messages) by their names.
struct Descriptors {
    by_full_name: HashMap<String, DescriptorProto>,
    top_level: HashMap<String, String>,
}

fn descriptors() -> &'static Descriptors {
    static API: OnceLock<Descriptors> = OnceLock::new();
    API.get_or_init(|| {
        let set = FileDescriptorSet::decode(super::proto::FILE_DESCRIPTOR_SET).unwrap_or_default();
        let mut api = Descriptors { by_full_name: HashMap::new(), top_level: HashMap::new() };
        for file in set.file {
            let scope = format!(".{}", file.package());
            for m in file.message_type {
                api.top_level.insert(m.name().to_string(), format!("{scope}.{}", m.name()));
                api.add(&scope, m);
            }
        }
        api
    })
}

impl Descriptors {
    fn add(&mut self, scope: &str, message: DescriptorProto) {
        let full_name = format!("{scope}.{}", message.name());
        for nested in &message.nested_type {
            self.add(&full_name, nested.clone());
        }
        self.by_full_name.insert(full_name, message);
    }

    /// A request, by the name the generated code gives its type.
    fn request(&self, name: &str) -> Option<&DescriptorProto> {
        self.by_full_name.get(self.top_level.get(name)?)
    }

    /// The message type of a message field.
    fn message_of(&self, field: &FieldDescriptorProto) -> Option<&DescriptorProto> {
        (field.r#type() == Type::Message).then(|| self.by_full_name.get(field.type_name()))?
    }
}

/// The elements of each repeated field read so far in one message, and the same for
/// each of its singular message fields: prost merges the occurrences of a singular
/// message into one, so its lists run on from one occurrence to the next.
#[derive(Default)]
struct Seen {
    elements: HashMap<u32, usize>,
    merged: HashMap<u32, Seen>,
}

/// Pushes onto `path` the fields from `message` (whose bytes are `bytes`) to the one
/// that breaks as `steps` say, the first `steps` pair naming a field of `message`;
/// whether they were found.
fn locate(
    api: &Descriptors,
    message: &DescriptorProto,
    bytes: &[u8],
    steps: &[Step],
    seen: &mut Seen,
    path: &mut Vec<String>,
) -> bool {
    let Some((step, inner)) = steps.split_first() else { return false };
    if message.name() != step.message {
        return false;
    }
    let fields = named_fields(message, proto_name(step.field));
    for read in wire_fields(bytes) {
        let (number, value) = match read {
            Ok(f) => (f.number, Some(f.value)),
            // A field cut or malformed on the wire breaks at this level.
            Err(Broken { number: Some(number) }) if inner.is_empty() => (number, None),
            Err(_) => return false,
        };
        let Some(&field) = fields.iter().find(|f| u32::try_from(f.number()) == Ok(number)) else { continue };
        let elements = seen.elements.entry(number).or_default();
        let here = segment(field, *elements);
        *elements += 1;
        let Some(value) = value else {
            path.push(here);
            return true;
        };
        if inner.is_empty() {
            if breaks(field, value) {
                path.push(here);
                return true;
            }
        } else if let (Some(sub), WireValue::LengthDelimited(sub_bytes)) = (api.message_of(field), value) {
            path.push(here);
            let mut element = Seen::default();
            let sub_seen =
                if field.label() == Label::Repeated { &mut element } else { seen.merged.entry(number).or_default() };
            if locate(api, sub, sub_bytes, inner, sub_seen, path) {
                return true;
            }
            path.pop();
        }
    }
    false
}

/// The fields a report's name means in `message`: the field of that name, or the
/// members of the oneof of that name (prost names a oneof, not its member).
fn named_fields<'a>(message: &'a DescriptorProto, name: &str) -> Vec<&'a FieldDescriptorProto> {
    if let Some(field) = message.field.iter().find(|f| f.name() == name) {
        return vec![field];
    }
    let Some(oneof) = message.oneof_decl.iter().position(|o| o.name() == name) else { return Vec::new() };
    message.field.iter().filter(|f| f.oneof_index.and_then(|i| usize::try_from(i).ok()) == Some(oneof)).collect()
}

/// The field's name in a path, with the index of its element when it is a repeated
/// string, bytes or message (each occurrence one element; a packed list of numbers holds
/// many).
fn segment(field: &FieldDescriptorProto, occurrence: usize) -> String {
    let one_per_occurrence = matches!(field.r#type(), Type::String | Type::Bytes | Type::Message);
    if field.label() == Label::Repeated && one_per_occurrence {
        format!("{}[{occurrence}]", field.name())
    } else {
        field.name().to_string()
    }
}

/// Whether `value` is not one prost decodes as `field`: the wrong wire type, a string
/// that is not UTF-8, a message whose own level breaks, a packed list cut.
fn breaks(field: &FieldDescriptorProto, value: WireValue) -> bool {
    let repeated = field.label() == Label::Repeated;
    match (field.r#type(), value) {
        (Type::String, WireValue::LengthDelimited(b)) => std::str::from_utf8(b).is_err(),
        (Type::Bytes, WireValue::LengthDelimited(_)) => false,
        (Type::Message, WireValue::LengthDelimited(b)) => wire_fields(b).any(|f| f.is_err()),
        (Type::Double | Type::Fixed64 | Type::Sfixed64, WireValue::Fixed64) => false,
        (Type::Float | Type::Fixed32 | Type::Sfixed32, WireValue::Fixed32) => false,
        (Type::Double | Type::Fixed64 | Type::Sfixed64, WireValue::LengthDelimited(b)) if repeated => {
            !b.len().is_multiple_of(8)
        }
        (Type::Float | Type::Fixed32 | Type::Sfixed32, WireValue::LengthDelimited(b)) if repeated => {
            !b.len().is_multiple_of(4)
        }
        (Type::String | Type::Bytes | Type::Message | Type::Group, _) => true,
        (Type::Double | Type::Fixed64 | Type::Sfixed64 | Type::Float | Type::Fixed32 | Type::Sfixed32, _) => true,
        // The varint types.
        (_, WireValue::Varint(_)) => false,
        (_, WireValue::LengthDelimited(b)) if repeated => !packed_varints(b),
        _ => true,
    }
}

/// Whether `bytes` are whole varints, as a packed list of them is.
fn packed_varints(bytes: &[u8]) -> bool {
    // Each varint ends with a byte below 0x80 and has at most ten bytes.
    bytes.last().is_none_or(|&b| b < 0x80) && bytes.split(|&b| b < 0x80).all(|run| run.len() < 10)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::proto;
    use crate::api::wire::Writer;

    /// The path and reason prost's own failure to decode `bytes` as `M` is named by.
    fn named<M: Message + Default>(bytes: &[u8]) -> (String, String) {
        let Err(report) = M::decode(bytes) else { panic!("bytes that decode") };
        let report = report.to_string();
        field_in_request(bytes, report.strip_prefix(UNDECODABLE).expect("prost's report"))
    }

    fn message(body: impl FnOnce(&mut Writer)) -> Vec<u8> {
        let mut w = Writer::default();
        body(&mut w);
        w.finish().0
    }

    const NOT_UTF8: &[u8] = &[0xff, 0xfe];

    #[test]
    fn a_keyword_field_is_named_as_the_proto_names_it() {
        let bytes = message(|w| w.bytes(2, NOT_UTF8));
        let (field, reason) = named::<proto::ValidateMoveRequest>(&bytes);
        assert_eq!((field.as_str(), reason.as_str()), ("move", "invalid string value: data is not UTF-8 encoded"));
        let report = proto::ValidateMoveRequest::decode(bytes.as_slice()).unwrap_err().to_string();
        assert!(report.contains("r#move"), "prost names the Rust field: {report}");
        assert_eq!(field_of_report(report.strip_prefix(UNDECODABLE).unwrap()).0, "move");
        assert_eq!(field_of_report("invalid tag value: 0"), (String::new(), "invalid tag value: 0".into()));
    }

    #[test]
    fn a_repeated_element_is_named_by_its_index() {
        let position = |w: &mut Writer| {
            w.message(1, |p| {
                p.uint(1, proto::Variant::Xiangqi as u64);
                p.bytes(3, b"h2e2");
                p.bytes(2, b"startpos");
                p.bytes(3, NOT_UTF8);
            })
        };
        assert_eq!(named::<proto::ValidateMoveRequest>(&message(position)).0, "position.moves[1]");
        // In a repeated message: the second tag's value.
        let tags = message(|w| {
            w.message(2, |t| t.bytes(1, b"Event"));
            w.message(2, |t| {
                t.bytes(1, b"Red");
                t.bytes(2, NOT_UTF8);
            });
        });
        assert_eq!(named::<proto::ExportRecordRequest>(&tags).0, "tags[1].value");
        // Through a oneof: prost names the oneof, the path its member.
        let job = |moves: &'static [&'static [u8]]| {
            move |w: &mut Writer| {
                w.message(2, |work| {
                    work.message(1, |audit| audit.message(1, |p| moves.iter().for_each(|m| p.bytes(3, m))))
                })
            }
        };
        let jobs = message(|w| {
            w.message(1, job(&[b"h2e2"]));
            w.message(1, job(&[b"h2e2", b"h9g7", NOT_UTF8]));
        });
        assert_eq!(named::<proto::SubmitJobsRequest>(&jobs).0, "jobs[1].work.audit.position.moves[2]");
    }

    #[test]
    fn wire_faults_are_found_where_prost_finds_them() {
        // position.moves[1] sent as a varint: the wrong wire type.
        let wrong_type = message(|w| {
            w.message(1, |p| {
                p.bytes(3, b"h2e2");
                p.uint(3, 7);
            })
        });
        let (field, reason) = named::<proto::ValidateMoveRequest>(&wrong_type);
        assert_eq!(field, "position.moves[1]", "{reason}");
        // The second move's length runs past the position's end.
        let cut = [0x0a, 0x0a, 0x1a, 0x04, b'h', b'2', b'e', b'2', 0x1a, 0x09, b'a', b'b'];
        assert_eq!(named::<proto::ValidateMoveRequest>(&cut).0, "position.moves[1]");
        // A position given twice is one, merged: its moves run on.
        let twice = message(|w| {
            w.message(1, |p| p.bytes(3, b"h2e2"));
            w.message(1, |p| p.bytes(3, NOT_UTF8));
        });
        assert_eq!(named::<proto::ValidateMoveRequest>(&twice).0, "position.moves[1]");
        // A broken key at the request's own level names no field.
        assert_eq!(named::<proto::ValidateMoveRequest>(&[0x00]).0, "");
        // Bytes that do not show the report's field: its names alone.
        let (field, _) = field_in_request(&[], "Position.moves: ValidateMoveRequest.position: invalid string value");
        assert_eq!(field, "position.moves");
    }
}
