//! A scripted fake of OpenAI's streaming Responses API on 127.0.0.1: what
//! the Codex CLI (a custom model provider with `wire_api = "responses"`)
//! and OpenClaw (a provider with `api: "openai-responses"`) call.
//! `POST /v1/responses` is answered as server-sent events
//! (`response.created`, one `response.output_item.done` per output item,
//! `response.completed`); anything else gets an empty JSON answer. Every
//! request is recorded so a test can check what reached the "model".
//!
//! Each request takes the next scripted turn, if the turn's `when` text
//! (when set) is in the request body; otherwise (and once the turns run out)
//! it gets the default reply.

use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// One scripted answer: output items (assistant messages, function calls).
#[derive(Clone, Debug)]
pub struct Turn {
    pub items: Vec<Value>,
    pub when: Option<String>,
}

impl Turn {
    pub fn text(t: &str) -> Turn {
        Turn {
            items: vec![message(t)],
            when: None,
        }
    }

    /// A call of `name`, in `namespace` when given (Codex puts an MCP
    /// server's tools in the namespace `mcp__<server>`; OpenClaw names them
    /// `<server>__<tool>` without one).
    pub fn call(namespace: Option<&str>, name: &str, args: Value) -> Turn {
        let id = next_id();
        let mut item = json!({
            "type": "function_call",
            "id": format!("fc_fake_{id}"),
            "call_id": format!("call_fake_{id}"),
            "name": name,
            "arguments": args.to_string(),
        });
        if let Some(ns) = namespace {
            item["namespace"] = json!(ns);
        }
        Turn {
            items: vec![item],
            when: None,
        }
    }

    pub fn when(mut self, text: &str) -> Turn {
        self.when = Some(text.to_string());
        self
    }
}

fn message(t: &str) -> Value {
    json!({
        "type": "message",
        "id": format!("msg_fake_{}", next_id()),
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": t, "annotations": []}],
    })
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
    /// Whether it took a scripted turn.
    pub scripted: bool,
}

struct State {
    turns: Vec<Turn>,
    next: usize,
    default: Turn,
    log: Vec<Recorded>,
}

pub struct FakeResponses {
    pub port: u16,
    state: Arc<Mutex<State>>,
}

impl FakeResponses {
    pub fn start(turns: Vec<Turn>) -> FakeResponses {
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
                    let _ = serve(conn, &st);
                });
            }
        });
        FakeResponses { port, state }
    }

    /// The base URL a provider config takes (`…/v1`).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().log.clone()
    }

    /// Bodies of the `/responses` requests, in order, as text.
    pub fn bodies(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .filter(|r| r.path.ends_with("/responses"))
            .map(|r| r.body.to_string())
            .collect()
    }

    pub fn turns_used(&self) -> usize {
        self.state.lock().unwrap().next
    }
}

fn serve(conn: TcpStream, state: &Arc<Mutex<State>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut out = conn;
    loop {
        let Some(request) = super::static_server::read_request(&mut reader) else {
            return Ok(());
        };
        let (method, path) = (request.method, request.path);
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let route = path.split('?').next().unwrap_or("").to_string();
        if method == "POST" && route.ends_with("/responses") {
            let (scripted, turn) = pick(state, &body);
            state.lock().unwrap().log.push(Recorded {
                method,
                path,
                body,
                scripted,
            });
            stream(&mut out, &turn)?;
            return Ok(());
        }
        state.lock().unwrap().log.push(Recorded {
            method,
            path,
            body,
            scripted: false,
        });
        let answer = if route.ends_with("/models") {
            json!({"object": "list", "data": [], "models": []})
        } else {
            json!({})
        };
        let text = answer.to_string();
        write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{text}",
            text.len()
        )?;
        out.flush()?;
    }
}

fn pick(state: &Arc<Mutex<State>>, body: &Value) -> (bool, Turn) {
    let mut st = state.lock().unwrap();
    if st.next < st.turns.len() {
        let turn = st.turns[st.next].clone();
        let text = body.to_string();
        if turn.when.as_ref().is_none_or(|w| text.contains(w.as_str())) {
            st.next += 1;
            return (true, turn);
        }
    }
    (false, st.default.clone())
}

fn stream(out: &mut TcpStream, turn: &Turn) -> std::io::Result<()> {
    let id = format!("resp_fake_{}", next_id());
    let mut events = vec![json!({"type": "response.created", "sequence_number": 0,
        "response": {"id": id, "object": "response", "status": "in_progress", "output": []}})];
    for (i, item) in turn.items.iter().enumerate() {
        events.push(json!({"type": "response.output_item.added", "output_index": i, "item": item}));
        if let Some(t) = item.pointer("/content/0/text") {
            events.push(
                json!({"type": "response.output_text.delta", "output_index": i,
                "item_id": item["id"], "content_index": 0, "delta": t}),
            );
        }
        events.push(json!({"type": "response.output_item.done", "output_index": i, "item": item}));
    }
    events.push(json!({"type": "response.completed", "response": {
        "id": id, "object": "response", "status": "completed", "output": turn.items,
        "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 15}}}));
    let mut body = String::new();
    for (n, e) in events.into_iter().enumerate() {
        let mut e = e;
        e["sequence_number"] = json!(n);
        body.push_str(&format!(
            "event: {}\ndata: {e}\n\n",
            e["type"].as_str().unwrap()
        ));
    }
    write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}
