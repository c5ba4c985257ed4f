//! A scripted fake of the Anthropic Messages API on 127.0.0.1, enough for
//! Claude Code to run a whole `-p` session offline: `POST /v1/messages`
//! (streamed as server-sent events, or plain JSON), `count_tokens`,
//! `GET /v1/models`, and 200 for `HEAD`. Every request is recorded so a test
//! can check what context reached the "model".
//!
//! A request whose body has a non-empty `tools` list is a main-loop request
//! and takes the next scripted turn (if the turn's `match` text, when set, is
//! in the body); other requests, and main requests once the turns run out,
//! get the default reply.

use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// One scripted reply: content blocks (text and tool_use), optionally only
/// for a request containing `matches`.
#[derive(Clone, Debug)]
pub struct Turn {
    pub blocks: Vec<Value>,
    pub matches: Option<String>,
}

impl Turn {
    pub fn text(t: &str) -> Turn {
        Turn {
            blocks: vec![json!({"type": "text", "text": t})],
            matches: None,
        }
    }
    pub fn tool_use(name: &str, input: Value) -> Turn {
        Turn {
            blocks: vec![
                json!({"type": "text", "text": "Let me check."}),
                json!({"type": "tool_use", "id": format!("toolu_fake_{}", next_id()), "name": name, "input": input}),
            ],
            matches: None,
        }
    }
    pub fn when(mut self, text: &str) -> Turn {
        self.matches = Some(text.to_string());
        self
    }
}

fn next_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}

/// A recorded request.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub body: Value,
    /// "main" (took a turn), "default", "count_tokens", "other".
    pub kind: &'static str,
}

struct State {
    turns: Vec<Turn>,
    next: usize,
    default: Turn,
    log: Vec<Recorded>,
}

pub struct FakeApi {
    pub port: u16,
    state: Arc<Mutex<State>>,
}

impl FakeApi {
    pub fn start(turns: Vec<Turn>) -> FakeApi {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(Mutex::new(State {
            turns,
            next: 0,
            default: Turn::text("(fake default reply)"),
            log: Vec::new(),
        }));
        let st = state.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let st = st.clone();
                std::thread::spawn(move || {
                    let _ = serve_connection(conn, &st);
                });
            }
        });
        FakeApi { port, state }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().log.clone()
    }

    /// Bodies of the /v1/messages requests, in order.
    pub fn message_bodies(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| r.path.starts_with("/v1/messages") && !r.path.contains("count_tokens"))
            .map(|r| r.body)
            .collect()
    }

    /// How many scripted turns were consumed.
    pub fn turns_used(&self) -> usize {
        self.state.lock().unwrap().next
    }
}

fn serve_connection(conn: TcpStream, state: &Arc<Mutex<State>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut out = conn;
    loop {
        let Some(request) = super::static_server::read_request(&mut reader) else {
            return Ok(());
        };
        let (method, path) = (request.method, request.path);
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let route = path.split('?').next().unwrap_or("").to_string();
        let keep_open = match (method.as_str(), route.as_str()) {
            ("HEAD", _) => {
                record(state, &method, &path, Value::Null, "other");
                write!(out, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")?;
                true
            }
            ("GET", "/v1/models") => {
                record(state, &method, &path, Value::Null, "other");
                send_json(
                    &mut out,
                    200,
                    &json!({"data": [], "has_more": false, "first_id": null, "last_id": null}),
                )?;
                true
            }
            ("POST", "/v1/messages/count_tokens") => {
                let n = body.to_string().len() / 4 + 1;
                record(state, &method, &path, body, "count_tokens");
                send_json(&mut out, 200, &json!({"input_tokens": n}))?;
                true
            }
            ("POST", "/v1/messages") => {
                let (kind, turn) = pick_turn(state, &body);
                let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
                let input_tokens = body.to_string().len() / 4 + 1;
                record(state, &method, &path, body, kind);
                reply_message(&mut out, &turn, stream, input_tokens)?;
                !stream
            }
            _ => {
                record(state, &method, &path, body, "other");
                send_json(
                    &mut out,
                    404,
                    &json!({"type": "error", "error": {"type": "not_found_error", "message": "fake: no such endpoint"}}),
                )?;
                true
            }
        };
        if !keep_open {
            return Ok(());
        }
    }
}

fn record(state: &Arc<Mutex<State>>, method: &str, path: &str, body: Value, kind: &'static str) {
    state.lock().unwrap().log.push(Recorded {
        method: method.into(),
        path: path.into(),
        body,
        kind,
    });
}

fn pick_turn(state: &Arc<Mutex<State>>, body: &Value) -> (&'static str, Turn) {
    let mut st = state.lock().unwrap();
    let is_main = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    if is_main && st.next < st.turns.len() {
        let turn = st.turns[st.next].clone();
        let text = body.to_string();
        if turn
            .matches
            .as_ref()
            .is_none_or(|m| text.contains(m.as_str()))
        {
            st.next += 1;
            return ("main", turn);
        }
    }
    ("default", st.default.clone())
}

fn send_json(out: &mut TcpStream, status: u16, v: &Value) -> std::io::Result<()> {
    let body = v.to_string();
    let reason = if status == 200 { "OK" } else { "Not Found" };
    write!(
        out,
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nrequest-id: req_fake\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

fn reply_message(
    out: &mut TcpStream,
    turn: &Turn,
    stream: bool,
    input_tokens: usize,
) -> std::io::Result<()> {
    let id = format!("msg_fake_{}", next_id());
    let has_tool = turn.blocks.iter().any(|b| b["type"] == "tool_use");
    let stop = if has_tool { "tool_use" } else { "end_turn" };
    let usage = json!({"input_tokens": input_tokens, "output_tokens": 5,
                       "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
    if !stream {
        return send_json(
            out,
            200,
            &json!({"id": id, "type": "message", "role": "assistant", "model": "claude-fake",
                    "content": turn.blocks, "stop_reason": stop, "stop_sequence": null, "usage": usage}),
        );
    }
    write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\nrequest-id: req_fake\r\n\r\n"
    )?;
    let mut ev = |name: &str, data: Value| -> std::io::Result<()> {
        write!(out, "event: {name}\ndata: {data}\n\n")?;
        out.flush()
    };
    ev(
        "message_start",
        json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant",
               "model": "claude-fake", "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage}}),
    )?;
    for (i, b) in turn.blocks.iter().enumerate() {
        match b["type"].as_str() {
            Some("tool_use") => {
                ev(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": i,
                           "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}}),
                )?;
                ev(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": i,
                           "delta": {"type": "input_json_delta", "partial_json": b["input"].to_string()}}),
                )?;
            }
            _ => {
                ev(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}),
                )?;
                ev(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": i,
                           "delta": {"type": "text_delta", "text": b["text"]}}),
                )?;
            }
        }
        ev(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": i}),
        )?;
    }
    ev(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
    )?;
    ev("message_stop", json!({"type": "message_stop"}))
}
