//! `pms ui` in a real browser: headless Chromium (Debian's) driven over
//! WebDriver by chromedriver. It opens the printed address, reads every
//! page, accepts a pending learning and rejects another through the forms
//! (the reject asks in a confirm() dialog), runs a search and follows a hit
//! to its highlighted lines, and opens a session from the timeline, at
//! desktop and at phone width, with JavaScript on and off. Screenshots of
//! each page land in target/ui-screenshots/ for a person to look at.
//!
//! In CI (PMS_E2E_REQUIRED=1) a missing browser fails the test; elsewhere
//! it is skipped loudly.

use std::path::PathBuf;

use crate::support::skip;
use crate::support::ui::{UiServer, furnished};
use crate::support::webdriver::{self, Browser, Driver, Script};

fn shots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("ui-screenshots")
}

/// Asserts the page fits the window's width: nothing to scroll sideways.
fn fits_width(b: &Browser, page: &str) {
    let v = b.run(
        "return [document.documentElement.scrollWidth, window.innerWidth, \
         [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).map(e => e.tagName + '.' + e.className).slice(0, 5)]",
    );
    let (scroll, inner) = (v[0].as_u64().unwrap(), v[1].as_u64().unwrap());
    assert!(
        scroll <= inner + 1,
        "{page}: {scroll}px wide in a {inner}px window; too wide: {}",
        v[2]
    );
}

#[test]
fn a_real_browser_reads_every_page_and_tends_the_lessons() {
    let Some((chromium, chromedriver)) = webdriver::find() else {
        skip::missing_tool(
            "chromium and chromedriver are not installed: the browser test of `pms ui` did not run",
            "apt-get install -y chromium chromium-driver",
        );
        return;
    };
    let (home, ids) = furnished();
    let ui = UiServer::start(&home, &[]);
    let origin = ui.origin();
    let driver = Driver::start(&chromium, &chromedriver);
    let dir = shots();

    // Desktop, JavaScript on.
    let b = driver.browser(Script::On, 1280, 900);
    b.goto(&ui.url);
    assert_eq!(
        b.current_url(),
        format!("{origin}/"),
        "the token left the address bar"
    );
    assert!(b.title().starts_with("Overview"), "{}", b.title());
    assert!(
        b.text("#layer0 pre")
            .contains("pms memory for Ada Lovelace")
    );
    assert!(b.text("#health").contains("hooks.present"));
    assert!(b.text("#index").contains("chunks"));
    b.screenshot(&dir.join("overview-desktop.png"));

    b.goto(&format!("{origin}/lessons"));
    assert!(
        b.text(&format!("#{}", ids[1]))
            .contains("batch invoice writes")
    );
    // The hostile rule is text on the page, not markup.
    assert_eq!(b.count("main script, main img"), 0);
    assert!(
        b.text("#in-force")
            .contains("<script>alert('pms')</script>")
    );
    b.screenshot(&dir.join("lessons-desktop.png"));
    b.click(&format!("#{} button:not([formaction])", ids[1]));
    assert!(
        b.text(".notice.ok").starts_with("Added"),
        "{}",
        b.text("main")
    );
    assert!(
        b.text("#in-force")
            .contains("batch invoice writes in one transaction")
    );
    let lessons = std::fs::read_to_string(home.workspace().join("_me/lessons.md")).unwrap();
    assert!(
        lessons.contains("batch invoice writes in one transaction"),
        "{lessons}"
    );
    assert!(lessons.contains(&format!("from {})_", ids[1])));
    // Reject asks first (confirm()), then drops the learning.
    b.click(&format!("#{} button[formaction='/lessons/reject']", ids[0]));
    b.accept_dialog();
    b.wait_for_url("notice=Rejected");
    assert!(b.text(".notice.ok").starts_with("Rejected"));
    assert_eq!(b.count("#pending article"), 0);

    // The matcher box.
    b.type_into("#prompt", "please commit the rust code after cargo fmt");
    b.click("#match button");
    b.wait_for_url("prompt=");
    assert!(b.text("#match table").contains("yes"));
    b.screenshot(&dir.join("lessons-match-desktop.png"));

    // Search, then a hit's lines.
    b.goto(&format!("{origin}/search"));
    b.type_into("#q", "shard billing database");
    b.click("form[role=search] button");
    b.wait_for_url("/search?q=");
    assert!(b.count("#results .hit") >= 1, "{}", b.text("main"));
    b.screenshot(&dir.join("search-desktop.png"));
    b.click("#results .hit a");
    b.wait_for_url("/view?");
    assert!(
        b.current_url()
            .contains("/view?uri=cc%3A%2F%2F-home-u-app%2Fs1.jsonl")
    );
    assert!(b.count(".turn.hl") >= 1, "the hit's lines are highlighted");
    b.screenshot(&dir.join("conversation-desktop.png"));

    // The timeline opens a conversation.
    b.goto(&format!("{origin}/sessions"));
    assert!(
        b.text(".day")
            .contains("How should we shard the billing database?")
    );
    b.screenshot(&dir.join("sessions-desktop.png"));
    b.click(".session a.title");
    b.wait_for_url("/view?");
    assert!(b.count(".turn.user") >= 2 && b.count(".turn.assistant") >= 2);

    // No CSP violation or script error on any of it.
    let console = b.console();
    assert!(
        !console.iter().any(|e| e["level"] == "SEVERE"
            || e["message"]
                .as_str()
                .unwrap_or("")
                .contains("Content Security Policy")),
        "{console:#?}"
    );

    // Phone width: every page fits, nothing scrolls sideways.
    b.resize(390, 844);
    let inner = b.run("return window.innerWidth").as_u64().unwrap();
    assert!(inner <= 420, "window is {inner}px wide");
    for (name, path) in [
        ("overview", "/".to_string()),
        (
            "lessons",
            "/lessons?prompt=please+commit+the+rust+code+after+cargo+fmt".to_string(),
        ),
        ("sessions", "/sessions".to_string()),
        ("search", "/search?q=shard+billing+database".to_string()),
        (
            "conversation",
            "/view?uri=cc%3A%2F%2F-home-u-app%2Fs1.jsonl&hl=2-2".to_string(),
        ),
        ("file", "/view?uri=_me%2Flessons.md".to_string()),
    ] {
        b.goto(&format!("{origin}{path}"));
        fits_width(&b, name);
        b.screenshot(&dir.join(format!("{name}-phone.png")));
    }
    drop(b);

    // JavaScript off: every page still reads.
    let b = driver.browser(Script::Off, 1024, 800);
    b.goto(&ui.url);
    assert!(
        b.text("#layer0 pre")
            .contains("pms memory for Ada Lovelace")
    );
    b.goto(&format!("{origin}/lessons"));
    assert!(b.text("#in-force").contains("batch invoice writes"));
    b.goto(&format!("{origin}/search?q=staging+database"));
    assert!(b.count("#results .hit") >= 1);
    b.goto(&format!("{origin}/sessions"));
    b.click(".session a.title");
    b.wait_for_url("/view?");
    assert!(b.count(".turn") >= 4);
    eprintln!("screenshots: {}", dir.display());
}
