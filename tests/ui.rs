//! `pms ui` over HTTP: the real binary on 127.0.0.1 in a temporary HOME.
//! Every route's status, the guard (token, Host, Origin, CSRF) refusing
//! what it must, hostile text staying text, and every action changing the
//! files the CLI would change.

use std::time::{Duration, Instant};

use crate::support::ui::{HOSTILE, UiServer, furnished};
use crate::support::{TestHome, stdout};
use serde_json::Value;

fn lessons_json(home: &TestHome) -> Value {
    serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap()
}

fn lessons_md(home: &TestHome) -> String {
    std::fs::read_to_string(home.workspace().join("_me/lessons.md")).unwrap()
}

#[test]
fn every_route_answers_with_its_status() {
    let (home, ids) = furnished();
    let ui = UiServer::start(&home, &[]);
    let rule = lessons_json(&home)["rules"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (path, status, needle) in [
        ("/", 200, "What the agent is told at session start"),
        ("/health", 200, "hooks.run"),
        ("/lessons", 200, ids[1].as_str()),
        (
            "/lessons?prompt=run+cargo+fmt+before+committing+the+rust+code",
            200,
            rule.as_str(),
        ),
        (
            "/sessions",
            200,
            "How should we shard the billing database?",
        ),
        ("/sessions?days=30&project=-home-u-app", 200, "-home-u-app"),
        (
            "/sessions?around=2020-01-01",
            200,
            "No sessions in this window",
        ),
        ("/sessions?around=yesterday-ish", 400, "is not a date"),
        (
            "/view?uri=cc%3A%2F%2F-home-u-app%2Fs1.jsonl&hl=4-4",
            200,
            "turn assistant hl",
        ),
        ("/view?uri=_me%2Flessons.md&hl=1", 200, "class=\"hl\""),
        ("/view", 400, "Which file?"),
        ("/view?uri=..%2F..%2Fetc%2Fpasswd", 403, "not allowed"),
        ("/view?uri=.pms%2Finstall.json", 403, "internal state"),
        ("/view?uri=nothing-here.md", 404, "not found"),
        ("/search", 200, "role=\"search\""),
        ("/search?q=shard+billing", 200, "cc://-home-u-app/s1.jsonl"),
        (
            "/search?q=staging+port&mode=keyword&source=transcript&limit=5",
            200,
            "staging database",
        ),
        ("/search?q=x&source=notes", 200, "unknown source"),
        ("/static/style.css", 200, "color-scheme"),
        ("/static/app.js", 200, "data-confirm"),
        ("/static/icon.svg", 200, "<svg"),
        ("/no-such-page", 404, "No such page"),
        ("/lessons/accept", 405, "does not take this method"),
    ] {
        let r = ui.get(path);
        assert_eq!(r.status, status, "GET {path}: {}", r.body);
        assert!(
            r.body.contains(needle),
            "GET {path} lacks {needle:?}:\n{}",
            r.body
        );
        assert_eq!(r.header("X-Frame-Options"), Some("DENY"), "{path}");
        assert!(
            r.header("Content-Security-Policy")
                .is_some_and(|c| c.contains("default-src 'none'")),
            "{path}"
        );
    }
    // HEAD is GET without a body; other methods are refused.
    let (host, cookie) = (ui.host(), ui.cookie());
    let head = ui.raw("HEAD", "/", &[("Host", &host), ("Cookie", &cookie)], "");
    assert_eq!((head.status, head.body.as_str()), (200, ""));
    let put = ui.raw("PUT", "/", &[("Host", &host), ("Cookie", &cookie)], "");
    assert_eq!(put.status, 405);
    let post_get_only = ui.post("/search", &[("q", "x")]);
    assert_eq!(post_get_only.status, 405);
    // every POST route, with a valid CSRF token, answers with a redirect
    for path in [
        "/lessons/accept",
        "/lessons/reject",
        "/lessons/edit",
        "/lessons/move",
        "/lessons/retire",
        "/lessons/memory/accept",
        "/lessons/memory/forget",
    ] {
        let r = ui.post(
            path,
            &[("id", "L-nosuch"), ("uri", "cc://nosuch/memory/x.md")],
        );
        assert_eq!(r.status, 303, "POST {path}: {}", r.body);
        let to = r.header("Location").unwrap();
        assert!(
            to.starts_with("/lessons?notice=") && to.contains("failed=1"),
            "{to}"
        );
    }
}

#[test]
fn the_guard_refuses_what_it_must() {
    let (home, ids) = furnished();
    let ui = UiServer::start(&home, &[]);
    let (host, cookie, origin) = (ui.host(), ui.cookie(), ui.origin());

    // the token: none, a wrong one, another port's cookie
    assert_eq!(ui.raw("GET", "/", &[("Host", &host)], "").status, 403);
    let wrong = format!("pms_ui_{}={}", ui.port, "0".repeat(64));
    assert_eq!(
        ui.raw("GET", "/", &[("Host", &host), ("Cookie", &wrong)], "")
            .status,
        403
    );
    let other_port = format!("pms_ui_{}={}", ui.port + 1, ui.token);
    assert_eq!(
        ui.raw(
            "GET",
            "/lessons",
            &[("Host", &host), ("Cookie", &other_port)],
            ""
        )
        .status,
        403
    );
    assert_eq!(
        ui.raw("GET", "/?token=abc", &[("Host", &host)], "").status,
        403
    );
    let refused = ui.raw("GET", "/lessons", &[("Host", &host)], "");
    assert!(
        !refused.body.contains(&ids[0]),
        "a refused request sees nothing"
    );
    assert_eq!(
        ui.raw("GET", "/static/style.css", &[("Host", &host)], "")
            .status,
        403
    );

    // the token in the URL becomes a cookie, and the URL loses it
    let first = ui.raw(
        "GET",
        &format!("/search?q=shard&token={}", ui.token),
        &[("Host", &host)],
        "",
    );
    assert_eq!(first.status, 303);
    assert_eq!(first.header("Location"), Some("/search?q=shard"));
    let set = first.header("Set-Cookie").unwrap();
    assert!(set.starts_with(&format!("{cookie};")), "{set}");
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );

    // Host: DNS rebinding, another port, none at all (HTTP/1.0)
    for bad in [
        "evil.example",
        &format!("evil.example:{}", ui.port),
        "127.0.0.1:1",
        "localhost",
    ] {
        let r = ui.raw("GET", "/", &[("Host", bad), ("Cookie", &cookie)], "");
        assert_eq!(r.status, 421, "Host {bad}");
        assert!(!r.body.contains("layer 0"), "Host {bad} saw the page");
    }
    let localhost = format!("localhost:{}", ui.port);
    assert_eq!(
        ui.raw("GET", "/", &[("Host", &localhost), ("Cookie", &cookie)], "")
            .status,
        200
    );

    // Origin and Sec-Fetch-Site from another site, even with the cookie
    for (name, value) in [
        ("Origin", "http://evil.example"),
        ("Origin", "null"),
        ("Origin", &format!("http://127.0.0.1:{}", ui.port + 1)),
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Site", "same-site"),
    ] {
        let r = ui.raw(
            "GET",
            "/lessons",
            &[("Host", &host), ("Cookie", &cookie), (name, value)],
            "",
        );
        assert_eq!(r.status, 403, "{name}: {value}");
    }

    // POSTs: without the CSRF token, with a wrong one, with the auth token
    // in its place, from another origin, not URL-encoded, too large
    let before = std::fs::read(home.workspace().join(".pms/pending-learnings.json")).unwrap();
    let form = |csrf: &str| format!("csrf={csrf}&id={}", ids[1]);
    let post =
        |headers: &[(&str, &str)], body: &str| ui.raw("POST", "/lessons/reject", headers, body);
    let good_headers = [
        ("Host", host.as_str()),
        ("Cookie", cookie.as_str()),
        ("Origin", origin.as_str()),
        ("Content-Type", "application/x-www-form-urlencoded"),
    ];
    assert_eq!(post(&good_headers, &format!("id={}", ids[1])).status, 403);
    assert_eq!(post(&good_headers, &form(&"f".repeat(64))).status, 403);
    assert_eq!(post(&good_headers, &form(&ui.token)).status, 403);
    let csrf = ui.csrf();
    let mut evil = good_headers;
    evil[2] = ("Origin", "http://evil.example");
    assert_eq!(post(&evil, &form(&csrf)).status, 403);
    let mut plain = good_headers;
    plain[3] = ("Content-Type", "text/plain");
    assert_eq!(post(&plain, &form(&csrf)).status, 415);
    let huge = format!("{}&pad={}", form(&csrf), "x".repeat(300 * 1024));
    assert_eq!(post(&good_headers, &huge).status, 413);
    let no_cookie = [good_headers[0], good_headers[2], good_headers[3]];
    assert_eq!(post(&no_cookie, &form(&csrf)).status, 403);
    assert_eq!(
        std::fs::read(home.workspace().join(".pms/pending-learnings.json")).unwrap(),
        before,
        "no refused POST changed anything"
    );
    // the same POST with everything right does it
    assert_eq!(post(&good_headers, &form(&csrf)).status, 303);
    assert_ne!(
        std::fs::read(home.workspace().join(".pms/pending-learnings.json")).unwrap(),
        before
    );
}

#[test]
fn hostile_text_is_shown_as_text_everywhere() {
    let (home, _) = furnished();
    let ui = UiServer::start(&home, &[]);
    let escaped =
        "&lt;script&gt;alert(&#39;pms&#39;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;";
    for path in [
        "/",
        "/lessons",
        "/lessons?prompt=%3Cscript%3Ealert(1)%3C%2Fscript%3E+cargo+fmt+commit",
        "/view?uri=cc%3A%2F%2F-home-u-app%2Fs1.jsonl",
        "/view?uri=_me%2Flessons.md",
        "/search?q=shard+billing",
        "/search?q=%3Cscript%3E%22",
        "/sessions",
    ] {
        let r = ui.get(path);
        assert_eq!(r.status, 200, "{path}");
        assert!(
            !r.body.contains("<script>"),
            "{path} has a raw <script>:\n{}",
            r.body
        );
        assert!(!r.body.contains("<img"), "{path} has a raw <img>");
        assert!(
            !r.body.contains("</textarea><b>"),
            "{path}: a cue closed its textarea"
        );
    }
    for path in ["/lessons", "/view?uri=cc%3A%2F%2F-home-u-app%2Fs1.jsonl"] {
        let body = ui.get(path).body;
        assert!(
            body.contains(escaped),
            "{path} does not show the text escaped:\n{body}"
        );
    }
    assert!(
        ui.get("/lessons")
            .body
            .contains("&lt;/textarea&gt;&lt;b&gt;cue&lt;/b&gt;")
    );
    assert!(
        ui.get("/").body.contains("&lt;pms:data"),
        "layer 0's fence is shown as text"
    );
    assert!(HOSTILE.contains("<script>"));
}

#[test]
fn the_lesson_actions_change_what_the_cli_changes() {
    let (home, ids) = furnished();
    let ui = UiServer::start(&home, &[]);

    // accept with the user's wording, cues and home
    let r = ui.post(
        "/lessons/accept",
        &[
            ("id", &ids[1]),
            ("text", "Batch invoice writes in one transaction."),
            ("cues", "invoice writes; billing batch job"),
            ("to", "product"),
            ("on_duplicate", "stop"),
        ],
    );
    assert_eq!(r.status, 303);
    let to = r.header("Location").unwrap().to_string();
    assert!(
        to.contains("notice=Added") && !to.contains("failed"),
        "{to}"
    );
    let after = ui.get(&to);
    assert!(after.body.contains("notice ok"), "{}", after.body);
    let claude_md = std::fs::read_to_string(home.workspace().join("product/CLAUDE.md")).unwrap();
    assert!(
        claude_md.contains("Batch invoice writes in one transaction.")
            && claude_md.contains("applies when: invoice writes; billing batch job"),
        "{claude_md}"
    );
    let v = lessons_json(&home);
    assert_eq!(
        v["pending"].as_array().unwrap().len(),
        1,
        "accepted item left pending"
    );
    let added = v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["file"] == "product/CLAUDE.md")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();

    // edit: new wording and cues, the id kept
    let r = ui.post(
        "/lessons/edit",
        &[
            ("id", &added),
            ("text", "Batch all invoice writes in one transaction."),
            ("cues", "invoices; batch"),
        ],
    );
    assert!(r.header("Location").unwrap().contains("notice=Changed"));
    let claude_md = std::fs::read_to_string(home.workspace().join("product/CLAUDE.md")).unwrap();
    assert!(
        claude_md.contains(&format!("[{added}] Batch all invoice writes")),
        "{claude_md}"
    );
    assert!(claude_md.contains("applies when: invoices; batch"));

    // move to _me, then retire
    let r = ui.post("/lessons/move", &[("id", &added), ("to", "me")]);
    assert!(
        r.header("Location").unwrap().contains("notice=Moved"),
        "{:?}",
        r.header("Location")
    );
    assert!(lessons_md(&home).contains(&format!("[{added}] Batch all invoice writes")));
    let r = ui.post("/lessons/retire", &[("id", &added)]);
    assert!(r.header("Location").unwrap().contains("notice=Retired"));
    assert!(lessons_md(&home).contains(&format!(
        "[{added}] Batch all invoice writes in one transaction."
    )));
    assert!(
        !lessons_json(&home)["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == added.as_str()),
        "a retired rule is no longer in force"
    );
    assert!(lessons_md(&home).contains("(retired "));

    // a move to a domain that is not installed says why, and changes nothing
    let rule = lessons_json(&home)["rules"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let before = lessons_md(&home);
    let r = ui.post("/lessons/move", &[("id", &rule), ("to", "astrology")]);
    let to = r.header("Location").unwrap();
    assert!(to.contains("failed=1") && to.contains("astrology"), "{to}");
    assert_eq!(lessons_md(&home), before);

    // reject the hostile learning
    let r = ui.post("/lessons/reject", &[("id", &ids[0])]);
    assert!(r.header("Location").unwrap().contains("notice=Rejected"));
    assert!(
        lessons_json(&home)["pending"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // the auto-memory correction becomes a lesson and leaves auto-memory
    let memory_uri = "cc://-home-u-app/memory/feedback-deploy-region.md";
    assert!(ui.get("/lessons").body.contains(memory_uri));
    let r = ui.post(
        "/lessons/memory/accept",
        &[
            ("uri", memory_uri),
            (
                "text",
                "Deploy to eu-west-1, never us-east-1: customer data stays in the EU.",
            ),
            ("cues", "deploy region; terraform apply"),
            ("to", "me"),
            ("forget", "1"),
        ],
    );
    let to = r.header("Location").unwrap();
    assert!(to.contains("removed") && !to.contains("failed"), "{to}");
    assert!(lessons_md(&home).contains("Deploy to eu-west-1, never us-east-1"));
    assert!(
        lessons_md(&home).contains(memory_uri),
        "the rule names where it came from"
    );
    assert!(
        !home
            .path(".claude/projects/-home-u-app/memory/feedback-deploy-region.md")
            .exists()
    );
    // a path the page did not offer is never touched
    let outside = home.path("not-a-memory.md");
    std::fs::write(&outside, "keep me").unwrap();
    let r = ui.post(
        "/lessons/memory/forget",
        &[("uri", outside.to_str().unwrap())],
    );
    assert!(r.header("Location").unwrap().contains("failed=1"));
    assert!(outside.exists());
}

#[test]
fn a_near_duplicate_is_stopped_until_the_user_chooses() {
    let (home, ids) = furnished();
    home.ok(&[
        "lessons",
        "add",
        "Batch invoice writes in one transaction, always.",
    ]);
    let ui = UiServer::start(&home, &[]);
    let r = ui.post(
        "/lessons/accept",
        &[("id", &ids[1]), ("to", "me"), ("on_duplicate", "stop")],
    );
    let to = r.header("Location").unwrap().to_string();
    assert!(to.contains("failed=1") && to.contains("nearly"), "{to}");
    assert_eq!(lessons_json(&home)["pending"].as_array().unwrap().len(), 2);
    let r = ui.post(
        "/lessons/accept",
        &[("id", &ids[1]), ("to", "me"), ("on_duplicate", "merge")],
    );
    assert!(r.header("Location").unwrap().contains("notice=Merged"));
    assert_eq!(lessons_json(&home)["pending"].as_array().unwrap().len(), 1);
}

#[test]
fn the_matcher_box_shows_what_the_hook_would_add() {
    let (home, _) = furnished();
    let ui = UiServer::start(&home, &[]);
    let rule = lessons_json(&home)["rules"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let prompt = "please commit the rust code after cargo fmt";
    let page = ui
        .get(&format!(
            "/lessons?prompt={}",
            crate::support::ui::pct(prompt)
        ))
        .body;
    assert!(
        page.contains("The hook would add <b>1 lesson</b> to this prompt"),
        "{page}"
    );
    let row = &page[page.find("<tbody>").unwrap()..];
    assert!(
        row.contains("status-ok\">yes") && row.contains(&rule),
        "{row}"
    );
    // the page's answer is the hook's answer
    let hook = home.hook(
        "user-prompt",
        &serde_json::json!({"session_id": "m", "prompt": prompt}),
    );
    assert!(stdout(&hook).contains(&rule), "{}", stdout(&hook));
    let unrelated = ui
        .get("/lessons?prompt=draw+a+revenue+chart+for+the+board")
        .body;
    assert!(
        unrelated.contains("No lesson shares a key term")
            || unrelated.contains("The hook would add <b>0</b>")
    );
    let trivial = ui.get("/lessons?prompt=ok").body;
    assert!(trivial.contains("treats this prompt as trivial"));
}

/// Issue 27 item 11: a token typed into the matcher's box came back on the
/// page as typed. It is shown redacted, and the prompt is still matched.
#[test]
fn the_matcher_box_shows_a_typed_token_redacted() {
    let (home, _) = furnished();
    let ui = UiServer::start(&home, &[]);
    let token = format!("ghp_{}", "Zq7x".repeat(9));
    let prompt = format!("please commit the rust code after cargo fmt with {token}");
    let page = ui
        .get(&format!(
            "/lessons?prompt={}",
            crate::support::ui::pct(&prompt)
        ))
        .body;
    assert!(!page.contains(&token), "the token is on the page");
    assert!(
        !page.contains(&token[..16]),
        "part of the token is on the page"
    );
    assert!(
        page.contains(
            "please commit the rust code after cargo fmt with [REDACTED:github-token]</textarea>"
        ),
        "{page}"
    );
    assert!(
        page.contains("The hook would add <b>1 lesson</b> to this prompt"),
        "the prompt is matched as typed: {page}"
    );
}

/// The listening sockets of this machine on `port` (from /proc/net/tcp and
/// tcp6): (local address hex, state hex).
fn listeners(port: u16) -> Vec<String> {
    let mut out = Vec::new();
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(state)) = (cols.get(1), cols.get(3)) else {
                continue;
            };
            let Some((addr, p)) = local.split_once(':') else {
                continue;
            };
            if u16::from_str_radix(p, 16).ok() == Some(port) && *state == "0A" {
                out.push(addr.to_string());
            }
        }
    }
    out
}

fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if !e
            .file_name()
            .to_string_lossy()
            .chars()
            .all(|c| c.is_ascii_digit())
        {
            continue;
        }
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(needle) {
            out.push(format!("{}: {cmd}", e.file_name().to_string_lossy()));
        }
    }
    out
}

#[test]
fn it_listens_on_loopback_only_and_ctrl_c_leaves_no_process() {
    let (home, _) = furnished();
    let ui = UiServer::start(&home, &[]);
    assert_eq!(
        listeners(ui.port),
        ["0100007F"],
        "listening on 127.0.0.1 only"
    );
    // the live checks start `pms serve` and every hook; all must be gone after
    assert_eq!(ui.get("/health").status, 200);
    let ws = home.workspace().display().to_string();
    let t = Instant::now();
    let status = ui.interrupt();
    assert!(status.success(), "{status}");
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "stopping took {:?}",
        t.elapsed()
    );
    assert_eq!(processes_mentioning(&ws), Vec::<String>::new());
}

#[test]
fn a_fixed_port_is_used_and_a_taken_one_is_explained() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let ws = home.workspace();
    let out = home.run(&[
        "ui",
        "--no-open",
        "--port",
        &port,
        "-w",
        ws.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = crate::support::stderr(&out);
    assert!(
        err.contains(&format!("127.0.0.1:{port}: cannot listen")) && err.contains("Fix:"),
        "{err}"
    );
    drop(taken);
    let ui = UiServer::start(&home, &["--port", &port]);
    assert_eq!(ui.port.to_string(), port);
    assert_eq!(ui.get("/").status, 200);
}

/// An opener that records its pid and what it was given, then hangs as
/// some do; and the file it writes.
fn hanging_opener(home: &TestHome) -> (std::path::PathBuf, std::path::PathBuf) {
    let bin = home.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let opened = home.path("opened.txt");
    let opener = bin.join("fake-browser");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\necho \"$$ $1\" > {}\nexec sleep 60\n",
            opened.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    (opener, opened)
}

/// The opener's pid and the address it got, once it wrote them.
fn opened(file: &std::path::Path) -> (String, String) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(line) = std::fs::read_to_string(file)
            && let Some((pid, url)) = line.trim().split_once(' ')
        {
            return (pid.to_string(), url.to_string());
        }
        assert!(Instant::now() < deadline, "the opener never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn running(pid: &str) -> bool {
    // a zombie is not running: the state field of /proc/<pid>/stat is Z
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

#[test]
fn the_browser_is_opened_without_waiting_for_it() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let (opener, file) = hanging_opener(&home);
    let ws = home.workspace();
    let mut cmd = home.pms(&["ui", "-w", ws.to_str().unwrap()]);
    cmd.env("BROWSER", &opener);
    let ui = UiServer::spawn(cmd);
    // served at once, while the opener still runs
    assert_eq!(ui.get("/").status, 200);
    let (pid, url) = opened(&file);
    assert_eq!(url, ui.url, "the browser gets the address with the token");
    assert!(running(&pid));
    let status = ui.interrupt();
    assert!(status.success());
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the opener was left running"
    );
}

#[test]
fn an_opener_that_hangs_is_stopped_after_its_grace() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let (opener, file) = hanging_opener(&home);
    let ws = home.workspace();
    let mut cmd = home.pms(&["ui", "-w", ws.to_str().unwrap()]);
    cmd.env("BROWSER", &opener)
        .env("PMS_TEST_OPENER_GRACE_MS", "300");
    let ui = UiServer::spawn(cmd);
    let (pid, _) = opened(&file);
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        assert!(
            Instant::now() < deadline,
            "the opener still runs past its grace"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(ui.get("/").status, 200, "the server goes on");
    assert!(ui.interrupt().success());
}

/// Issue 22: the page shows each lesson's guard and scope, sets a guard
/// (refusing a bad one with the reason), and its command box says which
/// guard and lessons a command would meet, as the hook does.
#[test]
fn the_page_shows_guards_and_scopes_and_tests_a_command() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let repo = home.path("code/web");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    home.ok(&[
        "lessons",
        "add",
        "Always use pnpm, never npm, in this repo.",
        "--project",
        repo.to_str().unwrap(),
    ]);
    home.ok(&["lessons", "add", "Never force-push to main."]);
    let force = lessons_json(&home)["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["text"].as_str().unwrap().contains("force-push"))
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ui = UiServer::start(&home, &[]);
    let page = ui.get("/lessons").body;
    assert!(
        page.contains("only in ") && page.contains("scope: everywhere"),
        "{page}"
    );
    let bad = ui.post(
        "/lessons/edit",
        &[
            ("id", &force),
            ("guard", "git push (--force"),
            ("guard_mode", "deny"),
        ],
    );
    let to = bad.header("Location").unwrap().to_string();
    assert!(
        to.contains("failed=1") && to.contains("regular%20expression"),
        "{to}"
    );
    assert!(
        lessons_json(&home)["rules"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["guard"].is_null())
    );
    ui.post(
        "/lessons/edit",
        &[
            ("id", &force),
            ("guard", r"git\s+push\b.*--force"),
            ("guard_mode", "deny"),
        ],
    );
    let page = ui.get("/lessons").body;
    assert!(
        page.contains("guard (deny before a matching tool call)"),
        "{page}"
    );
    let tested = ui
        .get(&format!(
            "/lessons?call={}",
            crate::support::ui::pct("git push --force origin main")
        ))
        .body;
    assert!(
        tested.contains("Denied") && tested.contains(&force),
        "{tested}"
    );
    let cli = stdout(&home.ok(&["lessons", "test", "git push --force origin main"]));
    assert!(cli.contains("Denied") && cli.contains(&force), "{cli}");
    let benign = ui.get("/lessons?call=git+status").body;
    assert!(benign.contains("No guard matches"), "{benign}");
}

/// Issue 24, item 3, on the page: a lesson changed there is indexed as it
/// is written, so `pms verify` does not report pms's own write as a stale
/// index.
#[test]
fn a_lesson_changed_on_the_page_is_not_reported_as_staleness() {
    let home = TestHome::new();
    home.init(&[]);
    home.ok(&["lessons", "add", "Never force-push to main."]);
    let id = lessons_json(&home)["rules"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ui = UiServer::start(&home, &[]);
    ui.post(
        "/lessons/edit",
        &[
            ("id", &id),
            ("text", "Never force-push to the main branch."),
        ],
    );
    assert!(lessons_md(&home).contains("Never force-push to the main branch."));
    let out = home.run(&["verify", "--json", "--quick"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fresh = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "index.fresh")
        .unwrap()
        .clone();
    assert_eq!(fresh["status"], "ok", "{fresh}");
}
