//! A tiny HTTP/1.1 server on 127.0.0.1: fixed responses by path (GitHub's
//! release API in the upgrade test, a model hub in the embeddings tests) or
//! a handler that sees the request (an `/v1/embeddings` endpoint). Routes
//! can be set after start, since responses often need the server's port.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// A request as a handler sees it.
pub struct Request {
    pub method: String,
    pub path: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// (status code, content type, body)
pub type Response = (u16, String, Vec<u8>);
type Handler = Arc<dyn Fn(&Request) -> Response + Send + Sync>;
type Routes = Arc<Mutex<Vec<(String, Handler)>>>;

pub struct StaticServer {
    pub port: u16,
    pub hits: Arc<Mutex<Vec<String>>>,
    routes: Routes,
}

impl StaticServer {
    pub fn start() -> StaticServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let hits = Arc::new(Mutex::new(Vec::new()));
        let routes: Routes = Arc::new(Mutex::new(Vec::new()));
        let (seen, table) = (hits.clone(), routes.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let (seen, table) = (seen.clone(), table.clone());
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(conn.try_clone().unwrap());
                    let mut out = conn;
                    while let Some(req) = read_request(&mut reader) {
                        seen.lock().unwrap().push(req.path.clone());
                        let key = req.path.split('?').next().unwrap_or("").to_string();
                        let handler = table
                            .lock()
                            .unwrap()
                            .iter()
                            .find(|(p, _)| *p == key)
                            .map(|(_, h)| h.clone());
                        let (status, ctype, body) = match handler {
                            Some(h) => h(&req),
                            None => (404, "text/plain".into(), b"not found".to_vec()),
                        };
                        let head = format!(
                            "HTTP/1.1 {status} {}\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\n\r\n",
                            if status == 200 { "OK" } else { "Error" },
                            body.len()
                        );
                        if out
                            .write_all(head.as_bytes())
                            .and_then(|_| out.write_all(&body))
                            .is_err()
                        {
                            return;
                        }
                    }
                });
            }
        });
        StaticServer { port, hits, routes }
    }

    /// Serves `body` with `content_type` at `path`.
    pub fn route(&self, path: &str, content_type: &str, body: Vec<u8>) {
        let ctype = content_type.to_string();
        self.handle(path, move |_| (200, ctype.clone(), body.clone()));
    }

    /// Answers requests for `path` with `handler`.
    pub fn handle(
        &self,
        path: &str,
        handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    ) {
        let mut routes = self.routes.lock().unwrap();
        routes.retain(|(p, _)| p != path);
        routes.push((path.into(), Arc::new(handler)));
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// One HTTP/1.1 request from a keep-alive connection (its body by
/// content-length or chunked); `None` at the end of the connection or on a
/// broken request. The fake model servers read with it too.
pub fn read_request(reader: &mut impl BufRead) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("GET").to_string();
    let path = parts.next().unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_lowercase(), v.trim().to_string()));
        }
    }
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked"));
    let body = if chunked {
        read_chunked(reader).ok()?
    } else {
        let len = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(0);
        let mut body = vec![0u8; len];
        reader.read_exact(&mut body).ok()?;
        body
    };
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size_line = String::new();
        reader.read_line(&mut size_line)?;
        let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap_or("0"), 16)
            .unwrap_or(0);
        let mut chunk = vec![0u8; size + 2];
        reader.read_exact(&mut chunk)?;
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(&chunk[..size]);
    }
}

/// How a fake hub serves a model's weights.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Served {
    Intact,
    /// model.safetensors with a byte flipped: its checksum fails.
    Corrupt,
}

/// Serves the model in `model_dir` as `id` on `server`: the top listing
/// (a subfolder as a "directory" entry, listed apart as the hub does) and
/// every file of the folder (`models::BERT_FILES`, those present); a
/// [`Served::Corrupt`] model.safetensors has a byte flipped.
pub fn serve_model(server: &StaticServer, id: &str, model_dir: &std::path::Path, weights: Served) {
    let mut top = Vec::new();
    let mut nested: std::collections::BTreeMap<String, Vec<Value>> = Default::default();
    for name in super::models::BERT_FILES {
        let Ok(bytes) = std::fs::read(model_dir.join(name)) else {
            continue;
        };
        let mut entry = json!({"type": "file", "path": name, "size": bytes.len()});
        let mut blob = <sha1::Sha1 as sha1::Digest>::new();
        sha1::Digest::update(&mut blob, format!("blob {}\0", bytes.len()).as_bytes());
        sha1::Digest::update(&mut blob, &bytes);
        entry["oid"] = json!(hex(&sha1::Digest::finalize(blob)));
        if name == "model.safetensors" {
            let sha = hex(&<sha2::Sha256 as sha2::Digest>::digest(&bytes));
            entry["lfs"] = json!({"oid": sha, "size": bytes.len(), "pointerSize": 134});
        }
        match name.split_once('/') {
            Some((folder, _)) => {
                if !nested.contains_key(folder) {
                    top.push(json!({"type": "directory", "path": folder, "oid": "d", "size": 0}));
                }
                nested.entry(folder.to_string()).or_default().push(entry);
            }
            None => top.push(entry),
        }
        let mut served = bytes.clone();
        if weights == Served::Corrupt && name == "model.safetensors" {
            let last = served.len() - 1;
            served[last] ^= 0xff;
        }
        server.route(
            &format!("/{id}/resolve/main/{name}"),
            "application/octet-stream",
            served,
        );
    }
    top.push(json!({"type": "file", "path": "README.md", "size": 3, "oid": "x"}));
    server.route(
        &format!("/api/models/{id}/tree/main"),
        "application/json",
        Value::Array(top).to_string().into_bytes(),
    );
    for (folder, entries) in nested {
        server.route(
            &format!("/api/models/{id}/tree/main/{folder}"),
            "application/json",
            Value::Array(entries).to_string().into_bytes(),
        );
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
