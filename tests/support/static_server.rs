//! A tiny HTTP server on 127.0.0.1 serving fixed responses by path: enough
//! to stand in for GitHub's release API in the upgrade test. Routes can be
//! set after start, since responses often need the server's own port.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

type Routes = Arc<Mutex<Vec<(String, String, Vec<u8>)>>>;

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
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                        loop {
                            let mut h = String::new();
                            if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
                                break;
                            }
                        }
                        seen.lock().unwrap().push(path.clone());
                        let key = path.split('?').next().unwrap_or("").to_string();
                        let found = table
                            .lock()
                            .unwrap()
                            .iter()
                            .find(|(p, _, _)| *p == key)
                            .cloned();
                        let (status, ctype, body) = match found {
                            Some((_, t, b)) => ("200 OK", t, b),
                            None => (
                                "404 Not Found",
                                "text/plain".to_string(),
                                b"not found".to_vec(),
                            ),
                        };
                        let head = format!(
                            "HTTP/1.1 {status}\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\n\r\n",
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
        self.routes
            .lock()
            .unwrap()
            .push((path.into(), content_type.into(), body));
    }
}
