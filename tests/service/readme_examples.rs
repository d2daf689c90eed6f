//! The grpcurl commands of `README.md`, `deploy/README.md` and `docs/*.md`, as written:
//! each one's request, read as the JSON mapping grpcurl sends, is answered OK by the
//! real server, right by the rules, and as the page shows it when it shows an answer;
//! `list` and `describe` find what they name through reflection. (grpcurl itself is
//! not needed.)

use serde_json::Value;
use tonic::transport::Channel;
use tonic_reflection::pb::v1::{
    ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
    server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
};

use crate::common;
use crate::common::doc_pages::{DocCommand, commands};

/// One grpcurl invocation: its request body, address and the rest of its arguments.
struct Grpcurl {
    data: Option<String>,
    host: String,
    args: Vec<String>,
}

fn parse_grpcurl(words: &[String]) -> Grpcurl {
    let mut data = None;
    let mut rest = Vec::new();
    let mut words = words[1..].iter();
    while let Some(w) = words.next() {
        match w.as_str() {
            "-plaintext" => {}
            "-d" => data = words.next().cloned(),
            "-import-path" | "-proto" => {
                words.next();
            }
            flag if flag.starts_with('-') => panic!("grpcurl flag {flag} is not understood here"),
            _ => rest.push(w.clone()),
        }
    }
    assert!(!rest.is_empty(), "grpcurl without an address: {words:?}");
    let host = rest.remove(0);
    Grpcurl { data, host, args: rest }
}

async fn reflect(channel: &Channel, request: MessageRequest) -> MessageResponse {
    let mut client = ServerReflectionClient::new(channel.clone());
    let request = ServerReflectionRequest { host: String::new(), message_request: Some(request) };
    let mut answers = client.server_reflection_info(tokio_stream::iter(vec![request])).await.unwrap().into_inner();
    answers.message().await.unwrap().expect("an answer").message_response.expect("a message")
}

/// Whether the answer `shown` on a page agrees with the `actual` one: every field shown
/// has the real value (fields left out are not compared), and every list shown is the
/// whole list. Errs with the path of the first difference.
fn agrees(shown: &Value, actual: &Value, path: &str) -> Result<(), String> {
    match (shown, actual) {
        (Value::Object(fields), Value::Object(real)) => fields.iter().try_for_each(|(name, value)| {
            let path = format!("{path}.{name}");
            agrees(value, real.get(name).ok_or_else(|| format!("{path}: not in the answer"))?, &path)
        }),
        (Value::Array(items), Value::Array(real)) if items.len() == real.len() => {
            items.iter().zip(real).enumerate().try_for_each(|(i, (a, b))| agrees(a, b, &format!("{path}[{i}]")))
        }
        (Value::Array(items), Value::Array(real)) => {
            Err(format!("{path}: {} entries shown, {} in the answer", items.len(), real.len()))
        }
        // grpcurl writes a whole double as 72, the JSON mapping of the test as 72.0.
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => Ok(()),
        _ if shown == actual => Ok(()),
        _ => Err(format!("{path}: shown {shown}, answered {actual}")),
    }
}

/// The JSON values of an answer block: one for a unary call, one per message of a stream.
fn shown_messages(text: &str) -> Vec<Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("an answer block is not JSON: {e}\n{text}"))
}

/// Checks the answer a page shows for `method` against the real one.
fn check_shown(method: &str, data: &Value, shown: &str, actual: &Value, context: &str) {
    let shown = shown_messages(shown);
    let actual = match actual {
        Value::Array(messages) => messages.clone(),
        one => vec![one.clone()],
    };
    for message in &shown {
        common::json_call::read_answer(method, message).unwrap_or_else(|e| panic!("{context}: the answer shown: {e}"));
    }
    if common::json_call::is_deterministic(method, data) {
        let (shown, actual) = (Value::Array(shown), Value::Array(actual));
        agrees(&shown, &actual, "answer").unwrap_or_else(|e| panic!("{context}: {e}\nreal answer: {actual}"));
    }
}

async fn run(channel: &Channel, file: &str, command: &DocCommand) {
    let shown = command.words.join(" ");
    let call = parse_grpcurl(&command.words);
    assert_eq!(call.host, "127.0.0.1:50051", "{file}: {shown}");
    match call.args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["list"] => {
            let MessageResponse::ListServicesResponse(list) =
                reflect(channel, MessageRequest::ListServices(String::new())).await
            else {
                panic!("{file}: {shown}: not a service list")
            };
            let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
            for service in ["chuhe.v1.RulesService", "chuhe.v1.AnalysisService", "grpc.health.v1.Health"] {
                assert!(names.iter().any(|n| n == service), "{file}: {shown}: {names:?}");
            }
        }
        ["describe", symbol] => {
            let answer = reflect(channel, MessageRequest::FileContainingSymbol(symbol.to_string())).await;
            assert!(
                matches!(answer, MessageResponse::FileDescriptorResponse(ref f) if !f.file_descriptor_proto.is_empty()),
                "{file}: {shown}: {answer:?}"
            );
        }
        [method] => {
            let data: Value = serde_json::from_str(call.data.as_deref().unwrap_or("{}"))
                .unwrap_or_else(|e| panic!("{file}: {shown}: -d is not JSON: {e}"));
            let answer = common::json_call::call(channel, method, &data)
                .await
                .unwrap_or_else(|status| panic!("{file}: {shown}: {status:?}"));
            let answered = match &answer {
                Value::Object(fields) => !fields.is_empty(),
                Value::Array(messages) => !messages.is_empty(),
                _ => false,
            };
            assert!(answered, "{file}: {shown}: {answer}");
            // What the command shows is right by the rules, not only an answer.
            common::json_call::check_answer(method, &data, &answer, &format!("{file}: {shown}: {answer}"));
            if let Some(text) = &command.answer {
                check_shown(method, &data, text, &answer, &format!("{file}: {shown}"));
            }
        }
        ref other => panic!("{file}: {shown}: arguments {other:?} are not understood here"),
    }
}

#[tokio::test]
async fn every_grpcurl_command_of_the_pages_works_as_written() {
    let server = common::server::start_small().await;
    let channel = server.channel().await;
    let mut checked = 0;
    let mut answers = 0;
    for (file, text) in common::doc_pages::pages() {
        for command in commands(&text, "grpcurl") {
            if command.language == "text" || command.words.join(" ").contains('…') {
                continue; // a pattern or a transcript, not a command to run
            }
            run(&channel, &file, &command).await;
            checked += 1;
            answers += usize::from(command.answer.is_some());
        }
    }
    assert!(checked >= 20, "the pages' grpcurl commands were found: {checked}");
    assert!(answers >= 10, "the answers shown for them were found: {answers}");
    server.shutdown().await;
}

#[test]
fn shell_words_follow_quotes_and_continued_lines() {
    let text = "```sh\ngrpcurl -d '{\"a\": 1}' \\\n  host m # note\necho x\n```\ngrpcurl outside\n";
    let found: Vec<Vec<String>> = commands(text, "grpcurl").into_iter().map(|c| c.words).collect();
    assert_eq!(found, vec![vec!["grpcurl", "-d", "{\"a\": 1}", "host", "m"]]);
}

#[test]
fn an_answer_is_the_json_block_right_after_the_command_s_block() {
    let text = "```sh\ngrpcurl h a\n```\n\n```json\n{\"x\": 1}\n```\n\
                ```sh\ngrpcurl h b\necho\n```\n```json\n{}\n```\n\
                ```sh\ngrpcurl h c\n```\nSome text.\n```json\n{}\n```\n";
    let found = commands(text, "grpcurl");
    let answers: Vec<Option<&str>> = found.iter().map(|c| c.answer.as_deref()).collect();
    assert_eq!(answers, vec![Some("{\"x\": 1}\n"), None, None]);
}

#[test]
fn a_shown_answer_agrees_only_with_the_real_values() {
    let actual: Value = serde_json::json!({"legal": true, "moves": [{"iccs": "a0a1"}, {"iccs": "i0i1"}]});
    assert!(agrees(&serde_json::json!({"legal": true}), &actual, "a").is_ok());
    assert!(agrees(&serde_json::json!({"legal": false}), &actual, "a").is_err());
    assert!(agrees(&serde_json::json!({"moves": [{"iccs": "a0a1"}]}), &actual, "a").is_err());
    assert!(agrees(&serde_json::json!({"reason": "X"}), &actual, "a").is_err());
}
