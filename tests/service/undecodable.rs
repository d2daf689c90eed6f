//! A request that does not decode, sent by a real gRPC client to the real server as
//! bytes written by hand: INVALID_ARGUMENT whose `google.rpc.BadRequest` names the
//! field as the proto does (`move`, not the generated code's `r#move`), with the index
//! of a repeated element (`position.moves[1]`), through nested messages.

use chuhe::api::proto;
use chuhe::api::wire::{Encoded, Writer};
use chuhe::service::codec::EncodedCodec;
use prost::Message;
use tonic::Status;

use crate::common;
use crate::common::server::Running;

/// The status of a unary call of `path` whose request message is `bytes`.
async fn call<R: Message + Default + Send + 'static>(server: &Running, path: &'static str, bytes: Vec<u8>) -> Status {
    let mut grpc = tonic::client::Grpc::new(server.channel().await);
    grpc.ready().await.expect("a ready connection");
    let path = http::uri::PathAndQuery::from_static(path);
    // The bytes go as they are; the answer is read as the API's clients read it.
    let answer = grpc.unary(tonic::Request::new(Encoded(bytes)), path, EncodedCodec::<R>::default()).await;
    let Err(status) = answer else { panic!("a request that does not decode is answered") };
    status
}

fn message(body: impl FnOnce(&mut Writer)) -> Vec<u8> {
    let mut w = Writer::default();
    body(&mut w);
    w.finish().0
}

const NOT_UTF8: &[u8] = &[0xff, 0xfe];
const VALIDATE_MOVE: &str = "/chuhe.v1.RulesService/ValidateMove";
const EXPORT_RECORD: &str = "/chuhe.v1.NotationService/ExportRecord";

/// A Xiangqi position (field 1) from the start with `moves`, then `extra` fields.
fn position(moves: &'static [&'static [u8]], extra: impl FnOnce(&mut Writer)) -> impl FnOnce(&mut Writer) {
    move |w: &mut Writer| {
        w.message(1, |p| {
            p.uint(1, proto::Variant::Xiangqi as u64);
            for m in moves {
                p.bytes(3, m);
            }
            extra(p);
        })
    }
}

#[tokio::test]
async fn a_field_that_does_not_decode_is_named_as_the_proto_names_it() {
    let server = common::server::start_small().await;
    let cases: Vec<(&str, &'static str, Vec<u8>)> = vec![
        // ValidateMoveRequest.move (field 2), a Rust keyword in the generated code.
        (
            "move",
            VALIDATE_MOVE,
            message(|w| {
                position(&[], |_| {})(w);
                w.bytes(2, NOT_UTF8);
            }),
        ),
        // The second of the position's moves (field 3 of field 1).
        ("position.moves[1]", VALIDATE_MOVE, message(position(&[b"h2e2", NOT_UTF8, b"h9g7"], |_| {}))),
        // The position's FEN (field 2 of field 1), a nested message's string.
        ("position.fen", VALIDATE_MOVE, message(position(&[], |p| p.bytes(2, NOT_UTF8)))),
        // ExportRecordRequest.tags (field 2): the second tag's value (its field 2).
        (
            "tags[1].value",
            EXPORT_RECORD,
            message(|w| {
                position(&[b"h2e2"], |_| {})(w);
                w.message(2, |t| {
                    t.bytes(1, b"Event");
                    t.bytes(2, b"Test");
                });
                w.message(2, |t| {
                    t.bytes(1, b"Red");
                    t.bytes(2, NOT_UTF8);
                });
            }),
        ),
    ];
    for (field, path, bytes) in cases {
        let status = if path == VALIDATE_MOVE {
            call::<proto::ValidateMoveResponse>(&server, path, bytes).await
        } else {
            call::<proto::ExportRecordResponse>(&server, path, bytes).await
        };
        let (named, reason) = common::violation(&status);
        assert_eq!(named, field, "{status:?}");
        assert_eq!(reason, "invalid string value: data is not UTF-8 encoded", "{status:?}");
        assert_eq!(status.message(), format!("{field}: {reason}"));
    }
    server.shutdown().await;
}
