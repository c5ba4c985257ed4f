//! `pms ui` under test: the real binary serving a temporary HOME, a raw
//! HTTP/1.1 client that sets every header itself (Host, Origin, Cookie:
//! what the guard looks at), and a workspace with hostile text in every
//! place the pages show.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::TestHome;

/// A running `pms ui`.
pub struct UiServer {
    child: Option<Child>,
    pub port: u16,
    pub token: String,
    /// The address it printed.
    pub url: String,
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl UiServer {
    /// `pms ui --no-open` (plus `extra`) on `home`'s workspace; returns once
    /// it printed its address.
    pub fn start(home: &TestHome, extra: &[&str]) -> UiServer {
        let ws = home.workspace();
        let mut args = vec!["ui", "--workspace", ws.to_str().unwrap()];
        if !extra.contains(&"--open") {
            args.push("--no-open");
        }
        args.extend(extra.iter().filter(|a| **a != "--open"));
        Self::spawn(home.pms(&args))
    }

    pub fn spawn(mut cmd: std::process::Command) -> UiServer {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("pms ui starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let first = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("pms ui prints its address");
        let url = first
            .strip_prefix("pms ui: ")
            .unwrap_or_else(|| panic!("unexpected first line: {first}"))
            .trim()
            .to_string();
        let rest = url
            .strip_prefix("http://127.0.0.1:")
            .expect("a 127.0.0.1 address");
        let (port, tail) = rest.split_once('/').unwrap();
        let token = tail.strip_prefix("?token=").expect("a token").to_string();
        UiServer {
            child: Some(child),
            port: port.parse().unwrap(),
            token,
            url,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn cookie(&self) -> String {
        format!("pms_ui_{}={}", self.port, self.token)
    }

    /// A request with exactly these headers (plus Connection: close and
    /// Content-Length).
    pub fn raw(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Resp {
        raw_request(self.port, method, path, headers, body)
    }

    /// GET as the browser does after the first visit: our Host, the cookie.
    pub fn get(&self, path: &str) -> Resp {
        let (host, cookie) = (self.host(), self.cookie());
        self.raw("GET", path, &[("Host", &host), ("Cookie", &cookie)], "")
    }

    /// The CSRF token the pages carry in their forms.
    pub fn csrf(&self) -> String {
        let page = self.get("/lessons").body;
        let at = page
            .find("name=\"csrf\" value=\"")
            .expect("a form with the CSRF field");
        let rest = &page[at + "name=\"csrf\" value=\"".len()..];
        rest[..rest.find('"').unwrap()].to_string()
    }

    /// A form POST as the page sends it: our Host and Origin, the cookie,
    /// the CSRF token.
    pub fn post(&self, path: &str, fields: &[(&str, &str)]) -> Resp {
        let csrf = self.csrf();
        let mut all: Vec<(&str, &str)> = vec![("csrf", &csrf)];
        all.extend_from_slice(fields);
        let (host, cookie, origin) = (self.host(), self.cookie(), self.origin());
        self.raw(
            "POST",
            path,
            &[
                ("Host", &host),
                ("Cookie", &cookie),
                ("Origin", &origin),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            &encode_form(&all),
        )
    }

    /// Ctrl+C: SIGINT, then the exit status (within 10 s).
    pub fn interrupt(mut self) -> ExitStatus {
        let mut child = self.child.take().unwrap();
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(child.id() as i32, libc::SIGINT);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(st) = child.try_wait().unwrap() {
                return st;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("pms ui did not stop within 10 s of SIGINT");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for UiServer {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub fn encode_form(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{}={}", pct(k), pct(v)))
        .collect::<Vec<_>>()
        .join("&")
}

pub fn pct(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// One request on its own connection; the whole answer read.
pub fn raw_request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Resp {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if method == "POST" || !body.is_empty() {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    if headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("Transfer-Encoding") && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    Resp {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size = usize::from_str_radix(
            String::from_utf8_lossy(&b[..eol])
                .split(';')
                .next()
                .unwrap()
                .trim(),
            16,
        )
        .unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + size]);
        b = &b[eol + 2 + size + 2..];
    }
}

/// Text no page may show as markup.
pub const HOSTILE: &str = "<script>alert('pms')</script><img src=x onerror=alert(1)>\"'&";

/// A workspace with something on every page: a transcript from yesterday
/// (indexed), a hostile pending learning, a hostile rule with cues, a clean
/// pending learning, and an auto-memory correction. Returns the home and
/// the pending ids (hostile first).
pub fn furnished() -> (TestHome, Vec<String>) {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = pms::platform::workspace::Workspace::new(home.workspace());
    let project = home.path(".claude/projects/-home-u-app");
    std::fs::create_dir_all(project.join("memory")).unwrap();
    let day = chrono::Utc::now() - chrono::Duration::days(1);
    let ts = |min: i64| {
        (day + chrono::Duration::minutes(min))
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    };
    let lines = [
        json!({"type": "user", "timestamp": ts(0), "sessionId": "s1", "cwd": "/home/u/app",
               "message": {"role": "user", "content": format!("How should we shard the billing database? {HOSTILE}")}}),
        json!({"type": "assistant", "timestamp": ts(1),
               "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Shard the billing database by tenant id; keep invoices co-located."}]}}),
        json!({"type": "user", "timestamp": ts(2), "sessionId": "s1", "cwd": "/home/u/app",
               "message": {"role": "user", "content": "And the staging database port?"}}),
        json!({"type": "assistant", "timestamp": ts(3),
               "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "The staging database listens on port 5433."}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(project.join("s1.jsonl"), text).unwrap();
    std::fs::write(
        project.join("memory/feedback-deploy-region.md"),
        "---\nname: feedback-deploy-region\ndescription: Deploy to eu-west-1, never us-east-1; customer data stays in the EU\nmetadata:\n  type: feedback\n---\nDeploy to eu-west-1.\n",
    )
    .unwrap();
    home.ok(&[
        "lessons",
        "add",
        &format!("Always run cargo fmt before committing {HOSTILE}"),
        "--when",
        "cargo fmt; </textarea><b>cue</b>; commit the rust code",
    ]);
    let candidates = [
        (
            "correction",
            format!("You're right — {HOSTILE} never paste secrets in chat"),
        ),
        (
            "method",
            "A simpler approach is to batch invoice writes in one transaction.".to_string(),
        ),
    ]
    .into_iter()
    .map(|(k, t)| pms::memory::lessons::pending::Candidate {
        kind: k.to_string(),
        text: t,
        domain: None,
        session_id: Some("s1".into()),
        transcript_ref: Some("cc://-home-u-app/s1.jsonl".into()),
        ..Default::default()
    })
    .collect();
    let added = pms::memory::lessons::pending::stage(&ws, candidates, &[]).unwrap();
    home.ok(&["index"]);
    (home, added.into_iter().map(|i| i.id).collect())
}
