//! The line guard in front of rmcp: every line a client sends is checked
//! before the protocol library sees it, so that malformed JSON-RPC gets the
//! answer JSON-RPC 2.0 prescribes, with the request's id whenever it could be
//! read (rmcp answers what it cannot parse without one, which a client cannot
//! match), and the server goes on serving.
//!
//! | line | answer |
//! |---|---|
//! | not UTF-8, not JSON (truncated, a lone surrogate, nested too deep) | -32700 Parse error, `id: null` |
//! | JSON, but not a request object (a batch, a scalar), no `"jsonrpc": "2.0"`, an id that is not a string or a number, a bad `method` | -32600 Invalid Request, with the request's id when it has one |
//! | an id that is a number but not an integer rmcp can hold (`1.5`, `1e30`) | -32600 Invalid Request, echoing that id as written |
//! | `params` that are not structured (`"params": "x"`) or a request rmcp cannot read | -32600 Invalid Request, with the id |
//! | `params` by position (`[1, 2]`), or params an MCP method cannot take (`"arguments": "x"` in `tools/call`) | -32602 Invalid params, with the id |
//! | a request object | passed to rmcp |
//!
//! (MCP since 2025-06-18 has no batches.) Everything written to stdout, by
//! rmcp or by the guard, goes through one writer task, one whole line at a
//! time, so answers never interleave.

// Logging and resources/(un)subscribe are deprecated in MCP, but rmcp still
// reads them into typed requests, so their params are still checked.
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequest, CallToolRequestMethod, CancelTaskMethod, CancelTaskRequest,
    ClientJsonRpcMessage, ClientRequest, CompleteRequest, CompleteRequestMethod, ConstString,
    DiscoverRequest, DiscoverRequestMethod, GetPromptRequest, GetPromptRequestMethod,
    GetSkillRequest, GetSkillRequestMethod, GetTaskMethod, GetTaskRequest, InitializeRequest,
    InitializeResultMethod, JsonRpcMessage, ListPromptsRequest, ListPromptsRequestMethod,
    ListResourceTemplatesRequest, ListResourceTemplatesRequestMethod, ListResourcesRequest,
    ListResourcesRequestMethod, ListSkillsRequest, ListSkillsRequestMethod, ListToolsRequest,
    ListToolsRequestMethod, PingRequest, PingRequestMethod, ReadResourceDirectoryRequest,
    ReadResourceDirectoryRequestMethod, ReadResourceRequest, ReadResourceRequestMethod,
    SetLevelRequest, SetLevelRequestMethod, SubscribeRequest, SubscribeRequestMethod,
    SubscriptionsListenRequest, SubscriptionsListenRequestMethod, UnsubscribeRequest,
    UnsubscribeRequestMethod, UpdateTaskMethod, UpdateTaskRequest,
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;

/// Longest line accepted (a larger one is answered with -32600 and dropped):
/// no tool argument needs more, and a client stuck in a loop cannot fill the
/// server's memory.
const MAX_LINE_BYTES: usize = 8 << 20;

/// Longest error message sent back: serde's messages quote the offending
/// value, which may be a whole 8 MB argument.
const MAX_MESSAGE_CHARS: usize = 300;

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Blank: ignore.
    Skip,
    /// A well-formed message: hand it to rmcp.
    Pass,
    /// Malformed: answer with this line (a JSON-RPC error, no newline).
    Answer(String),
}

/// The JSON-RPC error codes the guard answers with.
#[derive(Debug, Clone, Copy)]
enum Code {
    ParseError = -32700,
    InvalidRequest = -32600,
    InvalidParams = -32602,
}

/// An error answer. `id` is JSON text: the request's id exactly as the
/// client wrote it (so `1.5` or `18446744073709551616` come back unchanged,
/// not rounded through a float), or `null` when it could not be read.
fn error(id: &str, code: Code, message: &str) -> String {
    let message: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
    let body = json!({"code": code as i64, "message": message});
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{body}}}"#)
}

/// The request's id as written, for echoing back.
#[derive(Deserialize)]
struct RawId<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
}

/// Whether rmcp can hold `n` as a request id: it keeps ids as `i64`, and
/// takes an integer written as a float (`1.0`, `1e2`) when a float holds it
/// exactly (below 2^53).
fn rmcp_holds(n: &serde_json::Number) -> bool {
    const MAX_EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    n.is_i64()
        || n.as_f64()
            .is_some_and(|f| f.fract() == 0.0 && f.abs() < MAX_EXACT)
}

/// Why `params` do not fit `method`, for a method rmcp reads into a typed
/// request: checked by reading them into that very type, since rmcp, when it
/// cannot, falls back to a custom request and answers -32601 Method not found
/// for a method it serves. None for other methods.
#[allow(deprecated)]
fn params_problem(method: &str, params: Option<Value>) -> Option<String> {
    type Fit = fn(Value) -> Option<String>;
    fn fit<T: DeserializeOwned>(request: Value) -> Option<String> {
        serde_json::from_value::<T>(request)
            .err()
            .map(|e| e.to_string())
    }
    // Every typed variant of rmcp's `ClientRequest` (all but `CustomRequest`).
    let typed: [(&str, Fit); 21] = [
        (PingRequestMethod::VALUE, fit::<PingRequest>),
        (InitializeResultMethod::VALUE, fit::<InitializeRequest>),
        (DiscoverRequestMethod::VALUE, fit::<DiscoverRequest>),
        (CompleteRequestMethod::VALUE, fit::<CompleteRequest>),
        (SetLevelRequestMethod::VALUE, fit::<SetLevelRequest>),
        (GetPromptRequestMethod::VALUE, fit::<GetPromptRequest>),
        (ListPromptsRequestMethod::VALUE, fit::<ListPromptsRequest>),
        (
            ListResourcesRequestMethod::VALUE,
            fit::<ListResourcesRequest>,
        ),
        (
            ListResourceTemplatesRequestMethod::VALUE,
            fit::<ListResourceTemplatesRequest>,
        ),
        (ReadResourceRequestMethod::VALUE, fit::<ReadResourceRequest>),
        (
            SubscriptionsListenRequestMethod::VALUE,
            fit::<SubscriptionsListenRequest>,
        ),
        (SubscribeRequestMethod::VALUE, fit::<SubscribeRequest>),
        (UnsubscribeRequestMethod::VALUE, fit::<UnsubscribeRequest>),
        (CallToolRequestMethod::VALUE, fit::<CallToolRequest>),
        (ListToolsRequestMethod::VALUE, fit::<ListToolsRequest>),
        (GetTaskMethod::VALUE, fit::<GetTaskRequest>),
        (UpdateTaskMethod::VALUE, fit::<UpdateTaskRequest>),
        (CancelTaskMethod::VALUE, fit::<CancelTaskRequest>),
        (ListSkillsRequestMethod::VALUE, fit::<ListSkillsRequest>),
        (GetSkillRequestMethod::VALUE, fit::<GetSkillRequest>),
        (
            ReadResourceDirectoryRequestMethod::VALUE,
            fit::<ReadResourceDirectoryRequest>,
        ),
    ];
    let (_, fit) = typed.iter().find(|(m, _)| *m == method)?;
    let mut request = serde_json::Map::new();
    request.insert("method".into(), Value::String(method.into()));
    if let Some(p) = params {
        request.insert("params".into(), p);
    }
    fit(Value::Object(request))
}

/// Checks one line (without its newline).
pub fn check(line: &[u8]) -> Verdict {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    if line.len() > MAX_LINE_BYTES {
        return Verdict::Answer(error(
            "null",
            Code::InvalidRequest,
            "Invalid Request: line too long",
        ));
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return Verdict::Answer(error("null", Code::ParseError, "Parse error: not UTF-8"));
    };
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Answer(error(
                "null",
                Code::ParseError,
                &format!("Parse error: {e}"),
            ));
        }
    };
    let Some(obj) = v.as_object() else {
        let what = if v.is_array() {
            "Invalid Request: batches are not supported"
        } else {
            "Invalid Request: not an object"
        };
        return Verdict::Answer(error("null", Code::InvalidRequest, what));
    };
    // An id is echoed when it is a string or a number, the two kinds
    // JSON-RPC 2.0 allows, even a number rmcp cannot serve: the client can
    // still match the answer to its request. It is echoed as written (a key
    // given twice, which the borrowed read refuses, falls back to the parsed
    // value, the last one, as serde_json keeps it).
    let id: Option<String> = match obj.get("id") {
        Some(v @ (Value::String(_) | Value::Number(_))) => Some(
            serde_json::from_str::<RawId>(text)
                .ok()
                .and_then(|r| r.id)
                .map(|raw| raw.get().to_string())
                .unwrap_or_else(|| v.to_string()),
        ),
        _ => None,
    };
    let answer =
        |code: Code, why: &str| Verdict::Answer(error(id.as_deref().unwrap_or("null"), code, why));
    let invalid = |why: &str| answer(Code::InvalidRequest, &format!("Invalid Request: {why}"));
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    match (obj.get("method"), obj.get("id")) {
        (Some(Value::String(_)), None) => return Verdict::Pass, // a notification
        (Some(Value::String(_)), Some(_)) if id.is_some() => {}
        (Some(Value::String(_)), Some(_)) => return invalid("\"id\" must be a string or a number"),
        (Some(_), _) => return invalid("\"method\" must be a string"),
        // a response to a request of ours (none are made, but rmcp decides)
        (None, Some(_)) if obj.contains_key("result") || obj.contains_key("error") => {
            return Verdict::Pass;
        }
        (None, _) => return invalid("no \"method\""),
    }
    // A request with an id. A number with a fraction is an id JSON-RPC 2.0
    // allows (it only says numbers SHOULD NOT have one), so it is echoed for
    // the client to match; but MCP says a request id MUST be a string or an
    // integer, and rmcp holds ids as i64, so the request is not served.
    if let Some(Value::Number(n)) = obj.get("id")
        && !rmcp_holds(n)
    {
        return invalid(if n.as_f64().is_some_and(|f| f.fract() != 0.0) {
            "\"id\" must be a string or an integer (MCP)"
        } else {
            "\"id\" is too large: at most 2^63 - 1"
        });
    }
    match obj.get("params") {
        None | Some(Value::Null | Value::Object(_)) => {}
        // JSON-RPC 2.0 allows params by position, MCP has none.
        Some(Value::Array(_)) => {
            return answer(
                Code::InvalidParams,
                "Invalid params: MCP takes named params, an object, not an array",
            );
        }
        // JSON-RPC 2.0: params, when there, MUST be an array or an object.
        Some(_) => return invalid("\"params\" must be an object"),
    }
    // What rmcp will make of it: what it cannot read it answers without the
    // id; what it reads as a custom request for a method it serves it
    // answers with -32601, which is a lie: the method exists, the params do
    // not fit it.
    match serde_json::from_str::<ClientJsonRpcMessage>(text) {
        Err(e) => invalid(&e.to_string()),
        Ok(JsonRpcMessage::Request(r)) => match r.request {
            ClientRequest::CustomRequest(c) => match params_problem(&c.method, c.params) {
                Some(problem) => answer(
                    Code::InvalidParams,
                    &format!("Invalid params for {}: {problem}", c.method),
                ),
                None => Verdict::Pass,
            },
            _ => Verdict::Pass,
        },
        Ok(_) => Verdict::Pass,
    }
}

/// Serves `server` behind the guard on `input` / `output` (stdin and stdout
/// in `pms serve`): returns the (reader, writer) pair to give rmcp, and runs
/// the two tasks that connect them.
pub fn guard<I, O>(input: I, output: O) -> (DuplexStream, DuplexStream)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp_in, mut to_rmcp) = tokio::io::duplex(1 << 20);
    let (from_rmcp, rmcp_out) = tokio::io::duplex(1 << 20);
    let (answers, mut answered) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut reader = BufReader::with_capacity(1 << 16, input);
        let mut line = Vec::new();
        loop {
            line.clear();
            // At most one byte past the cap is kept: the rest of a longer
            // line is read and dropped, so it cannot fill the memory.
            match (&mut reader)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut line)
                .await
            {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.len() > MAX_LINE_BYTES && !line.ends_with(b"\n") {
                let mut rest = Vec::new();
                loop {
                    rest.clear();
                    match (&mut reader)
                        .take(1 << 16)
                        .read_until(b'\n', &mut rest)
                        .await
                    {
                        Ok(0) | Err(_) => break,
                        Ok(_) if rest.ends_with(b"\n") => break,
                        Ok(_) => {}
                    }
                }
            }
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            let body = body.strip_suffix(b"\r").unwrap_or(body);
            match check(body) {
                Verdict::Skip => {}
                Verdict::Pass => {
                    if to_rmcp.write_all(body).await.is_err()
                        || to_rmcp.write_all(b"\n").await.is_err()
                    {
                        break;
                    }
                }
                Verdict::Answer(v) => {
                    let _ = answers.send(v);
                }
            }
        }
        // EOF reaches rmcp: it stops, as it does on a closed stdin
        drop(to_rmcp);
    });
    tokio::spawn(async move {
        let mut output = output;
        let mut lines = BufReader::new(from_rmcp);
        let mut line = Vec::new();
        loop {
            tokio::select! {
                n = lines.read_until(b'\n', &mut line) => {
                    match n {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                                break;
                            }
                            line.clear();
                        }
                    }
                }
                Some(v) = answered.recv() => {
                    let text = format!("{v}\n");
                    if output.write_all(text.as_bytes()).await.is_err() || output.flush().await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    (rmcp_in, rmcp_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &[u8]) -> Option<(i64, Value)> {
        match check(line) {
            Verdict::Answer(line) => {
                let v: Value = serde_json::from_str(&line).unwrap();
                Some((v["error"]["code"].as_i64().unwrap(), v["id"].clone()))
            }
            _ => None,
        }
    }

    #[test]
    fn every_malformed_shape_gets_its_code() {
        assert_eq!(code(b"not json"), Some((-32700, Value::Null)));
        assert_eq!(
            code(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi"),
            Some((-32700, Value::Null))
        );
        assert_eq!(code(b"\xff\xfe"), Some((-32700, Value::Null)));
        assert_eq!(code(&[b'['; 10_000]), Some((-32700, Value::Null)));
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"\ud800"}}}"#),
            Some((-32700, Value::Null))
        );
        assert_eq!(
            code(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            Some((-32600, Value::Null))
        );
        assert_eq!(
            code(br#"{"id":7,"method":"ping"}"#),
            Some((-32600, json!(7)))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            Some((-32600, Value::Null))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":"a","method":5}"#),
            Some((-32600, json!("a")))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":3}"#),
            Some((-32600, json!(3)))
        );
        assert_eq!(code(b"42"), Some((-32600, Value::Null)));
        // the id comes back whenever it could be read
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            Some((-32600, json!(1.5)))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":4,"method":"ping","params":"string"}"#),
            Some((-32600, json!(4)))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":"p","method":"ping","params":[1,2]}"#),
            Some((-32602, json!("p")))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memory_search","arguments":"string"}}"#),
            Some((-32602, json!(5)))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":6,"method":"initialize","params":{}}"#),
            Some((-32602, json!(6)))
        );
        // as written, not rounded through a float
        match check(br#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#) {
            Verdict::Answer(line) => {
                assert!(line.contains(r#""id":18446744073709551616,"#), "{line}")
            }
            other => panic!("{other:?}"),
        }
        // what rmcp serves passes
        for ok in [
            br#"{"jsonrpc":"2.0","id":1e2,"method":"ping"}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":7,"method":"ping","params":null}"#,
            br#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#,
            br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":5}}}"#,
            br#"{"jsonrpc":"2.0","id":10,"method":"nope/nope","params":{}}"#,
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}"#,
        ] {
            assert_eq!(check(ok), Verdict::Pass, "{}", String::from_utf8_lossy(ok));
        }
        assert_eq!(check(b"  "), Verdict::Skip);
        assert_eq!(
            check(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Verdict::Pass
        );
        assert_eq!(
            check(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Verdict::Pass
        );
    }
}
