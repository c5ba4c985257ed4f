//! The line guard in front of rmcp: every line a client sends is checked
//! before the protocol library sees it, so that malformed JSON-RPC gets the
//! answer JSON-RPC 2.0 prescribes and the server goes on serving.
//!
//! | line | answer |
//! |---|---|
//! | not UTF-8, not JSON (truncated, a lone surrogate, nested too deep) | -32700 Parse error, `id: null` |
//! | JSON, but not a request object (a batch, a scalar), no `"jsonrpc": "2.0"`, a bad `id` or `method` | -32600 Invalid Request, with the request's id when it has a usable one |
//! | a request object | passed to rmcp |
//!
//! (MCP since 2025-06-18 has no batches.) Everything written to stdout, by
//! rmcp or by the guard, goes through one writer task, one whole line at a
//! time, so answers never interleave.

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;

/// Longest line accepted (a larger one is answered with -32600 and dropped):
/// no tool argument needs more, and a client stuck in a loop cannot fill the
/// server's memory.
const MAX_LINE_BYTES: usize = 8 << 20;

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Blank: ignore.
    Skip,
    /// A well-formed message: hand it to rmcp.
    Pass,
    /// Malformed: answer with this error.
    Answer(Value),
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Checks one line (without its newline).
pub fn check(line: &[u8]) -> Verdict {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    if line.len() > MAX_LINE_BYTES {
        return Verdict::Answer(error(Value::Null, -32600, "Invalid Request: line too long"));
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return Verdict::Answer(error(Value::Null, -32700, "Parse error: not UTF-8"));
    };
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Answer(error(Value::Null, -32700, &format!("Parse error: {e}")));
        }
    };
    let Some(obj) = v.as_object() else {
        let what = if v.is_array() {
            "Invalid Request: batches are not supported"
        } else {
            "Invalid Request: not an object"
        };
        return Verdict::Answer(error(Value::Null, -32600, what));
    };
    // An id is echoed only when it is one a client can match.
    let id = match obj.get("id") {
        Some(v @ (Value::String(_) | Value::Number(_))) => Some(v.clone()),
        _ => None,
    };
    let invalid = |why: &str| {
        Verdict::Answer(error(
            id.clone().unwrap_or(Value::Null),
            -32600,
            &format!("Invalid Request: {why}"),
        ))
    };
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    match (obj.get("method"), obj.get("id")) {
        (Some(Value::String(_)), None) => Verdict::Pass, // a notification
        (Some(Value::String(_)), Some(_)) if id.is_some() => Verdict::Pass,
        (Some(Value::String(_)), Some(_)) => invalid("\"id\" must be a string or a number"),
        (Some(_), _) => invalid("\"method\" must be a string"),
        // a response to a request of ours (none are made, but rmcp decides)
        (None, Some(_)) if obj.contains_key("result") || obj.contains_key("error") => Verdict::Pass,
        (None, _) => invalid("no \"method\""),
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
    let (answers, mut answered) = mpsc::unbounded_channel::<Value>();
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
            Verdict::Answer(v) => Some((v["error"]["code"].as_i64().unwrap(), v["id"].clone())),
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
