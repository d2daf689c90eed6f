//! The grpcurl commands of `README.md` and `deploy/README.md`, as written: each one's
//! request, read as the JSON mapping grpcurl sends, is answered OK by the real server,
//! and `list` and `describe` find what they name through reflection. (grpcurl itself
//! is not needed.)

use serde_json::Value;
use tonic::transport::Channel;
use tonic_reflection::pb::v1::{
    ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
    server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
};

use crate::common;

/// The commands of a Markdown file's code blocks that start with `program`, with
/// continued lines joined and split into words as the shell would (quotes, no
/// expansion).
fn commands(markdown: &str, program: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut in_block = false;
    let mut line = String::new();
    for raw in markdown.lines() {
        if raw.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        line.push_str(raw.trim());
        if let Some(joined) = line.strip_suffix('\\') {
            line = format!("{} ", joined.trim_end());
            continue;
        }
        let words = shell_words(&line);
        if words.first().is_some_and(|w| w == program) {
            found.push(words);
        }
        line.clear();
    }
    found
}

fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_default().push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_default();
            }
            (None, '#') if word.is_none() => break,
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_default().push(c),
        }
    }
    assert!(quote.is_none(), "unbalanced quote in: {line}");
    words.extend(word);
    words
}

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

#[tokio::test]
async fn every_grpcurl_command_of_the_readmes_works_as_written() {
    let server = common::server::start_small().await;
    let channel = server.channel().await;
    let mut checked = 0;
    for file in ["README.md", "deploy/README.md"] {
        let text = common::repo_text(file);
        for words in commands(&text, "grpcurl") {
            let shown = words.join(" ");
            if shown.contains('…') {
                continue; // a pattern with the request left out, not a command to run
            }
            let call = parse_grpcurl(&words);
            assert_eq!(call.host, "127.0.0.1:50051", "{file}: {shown}");
            match call.args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                ["list"] => {
                    let MessageResponse::ListServicesResponse(list) =
                        reflect(&channel, MessageRequest::ListServices(String::new())).await
                    else {
                        panic!("{file}: {shown}: not a service list")
                    };
                    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
                    for service in ["chuhe.v1.RulesService", "chuhe.v1.AnalysisService", "grpc.health.v1.Health"] {
                        assert!(names.iter().any(|n| n == service), "{file}: {shown}: {names:?}");
                    }
                }
                ["describe", symbol] => {
                    let answer = reflect(&channel, MessageRequest::FileContainingSymbol(symbol.to_string())).await;
                    assert!(
                        matches!(answer, MessageResponse::FileDescriptorResponse(ref f) if !f.file_descriptor_proto.is_empty()),
                        "{file}: {shown}: {answer:?}"
                    );
                }
                [method] => {
                    let data: Value = serde_json::from_str(call.data.as_deref().unwrap_or("{}"))
                        .unwrap_or_else(|e| panic!("{file}: {shown}: -d is not JSON: {e}"));
                    let answer = common::json_call::call(&channel, method, &data)
                        .await
                        .unwrap_or_else(|status| panic!("{file}: {shown}: {status:?}"));
                    assert!(answer.as_object().is_some_and(|o| !o.is_empty()), "{file}: {shown}: {answer}");
                    // What the command shows is right by the rules, not only an answer.
                    common::json_call::check_answer(method, &data, &answer, &format!("{file}: {shown}: {answer}"));
                }
                ref other => panic!("{file}: {shown}: arguments {other:?} are not understood here"),
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "the READMEs' grpcurl commands were found: {checked}");
    server.shutdown().await;
}

#[test]
fn shell_words_follow_quotes_and_continued_lines() {
    let text = "```sh\ngrpcurl -d '{\"a\": 1}' \\\n  host m # note\necho x\n```\ngrpcurl outside\n";
    let found = commands(text, "grpcurl");
    assert_eq!(found, vec![vec!["grpcurl", "-d", "{\"a\": 1}", "host", "m"]]);
}
