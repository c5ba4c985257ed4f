//! Keeping secrets out of everything pms writes or shows.
//!
//! Transcripts hold whatever passed through a terminal: API keys pasted
//! into a prompt, tokens echoed by a command, a `.env` file read by a tool.
//! Every path that writes or injects text (the index, summaries, pending
//! learnings, rules, notes, hook output, MCP results, `pms get`, the hook
//! log) passes it through [`redact`]: every match of the rules below is
//! replaced by `[REDACTED:<kind>]` (an assignment keeps its label:
//! `DATABASE_PASSWORD=[REDACTED:password]`), and everything between
//! `<private>` and `</private>` is dropped, and terminal control sequences
//! are stripped ([`controls`]). The rules ([`rules`]) favour recall: a false
//! positive costs a word of context, a miss leaks a key; what only looks
//! like a secret (`max_tokens = 128000`, `secretName: tls-cert-prod`) is
//! told apart by reading the name ([`names`]).
//!
//! Speed: the hooks redact what they inject on every prompt, so a rule is
//! compiled only when the text holds one of its keywords, the way gitleaks
//! gates its rules, and, for a rule whose keywords are everyday words,
//! when its [`rules::Gate`] holds past them. A hook's few KB are searched
//! keyword by keyword; a longer text, or a process that redacts much, in
//! one case-insensitive Aho-Corasick pass. Text with no keyword and no
//! control character is returned borrowed.

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, OnceLock};

use aho_corasick::AhoCorasick;
use regex::Regex;

pub mod controls;
mod lines;
mod names;
mod rules;

pub use lines::Lines;
use names::{name_holds_a_secret, names_a_variable, reads_as_words};
use rules::{RULES, Rule, Secret};

use crate::platform::host::text::holds_any;

/// The keywords of all rules in one automaton of `kind`, and the rule each
/// belongs to.
fn keywords(kind: aho_corasick::AhoCorasickKind) -> (AhoCorasick, Vec<usize>) {
    let mut words = Vec::new();
    let mut owner = Vec::new();
    for (i, r) in RULES.iter().enumerate() {
        for k in r.keywords {
            words.push(*k);
            owner.push(i);
        }
    }
    let ac = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(kind))
        .build(words)
        .expect("valid keywords");
    (ac, owner)
}

/// A contiguous NFA, not the DFA the builder picks for a set this small:
/// building the DFA was a third of the per-prompt hook's instructions
/// (callgrind, 51 M of 138 M in a debug build). Only for a text longer than
/// [`SCANNED`]: building even the NFA was 9% of a first edit's hook.
static KEYWORDS: LazyLock<(AhoCorasick, Vec<usize>)> =
    LazyLock::new(|| keywords(aho_corasick::AhoCorasickKind::ContiguousNFA));

/// The DFA, for a process that redacts much (an import, an index run):
/// searching export JSON in 2 KB pieces it ran at 275 MB/s against the
/// NFA's 104, and took 0.4 ms to build; the search was an eighth of an
/// import's time.
static KEYWORDS_DFA: LazyLock<(AhoCorasick, Vec<usize>)> =
    LazyLock::new(|| keywords(aho_corasick::AhoCorasickKind::DFA));

/// Bytes this process has searched for keywords; past [`BULK`] it uses the
/// DFA. A hook redacts tens of KB at most, so it never builds it.
static SEARCHED: AtomicUsize = AtomicUsize::new(0);
const BULK: usize = 1 << 20;

/// Texts up to this long are searched for each keyword in turn, in ASCII
/// lower case, with no automaton to build: about 0.1 ms for 8 KB of a
/// session start's context against 0.45 ms to build the NFA.
const SCANNED: usize = 16 * 1024;

/// Which rules a text holds a keyword of.
/// `lower`: the text in ASCII lower case, made here when the scan needs it
/// and kept for the rules' gates.
fn rules_with_keywords(text: &str, lower: &mut Option<String>) -> Vec<bool> {
    let mut wanted = vec![false; RULES.len()];
    let searched = SEARCHED.fetch_add(text.len(), Ordering::Relaxed);
    if searched <= BULK && text.len() <= SCANNED {
        let lower = lower.get_or_insert_with(|| text.to_ascii_lowercase());
        for (w, rule) in wanted.iter_mut().zip(RULES) {
            *w = holds_any(lower, rule.keywords);
        }
        return wanted;
    }
    let (ac, owner) = if searched > BULK {
        &*KEYWORDS_DFA
    } else {
        &*KEYWORDS
    };
    for m in ac.find_overlapping_iter(text) {
        wanted[owner[m.pattern().as_usize()]] = true;
    }
    wanted
}

/// Each rule's regex, compiled the first time text needs it.
static COMPILED: LazyLock<Vec<OnceLock<Regex>>> =
    LazyLock::new(|| RULES.iter().map(|_| OnceLock::new()).collect());

fn regex(i: usize) -> &'static Regex {
    COMPILED[i].get_or_init(|| Regex::new(RULES[i].pattern).expect("redaction patterns are valid"))
}

static PRIVATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?is)<private>.*?(?:</private>|\z)").expect("valid"));

/// `text` with secrets replaced, private spans removed and terminal
/// controls stripped ([`controls`]).
pub fn redact(text: &str) -> Cow<'_, str> {
    let out = secrets_out(text);
    if controls::is_clean(&out) {
        return out;
    }
    // The rules ran before the strip, so a token right after a colour code
    // was found (`token!`); they run again after it, so that a token a
    // control cut in two (`ghp_abc\x07def...`) does not come out whole.
    let clean = controls::strip(&out).into_owned();
    Cow::Owned(secrets_out(&clean).into_owned())
}

/// `text` with secrets replaced and private spans removed.
fn secrets_out(text: &str) -> Cow<'_, str> {
    let mut out: Cow<str> = Cow::Borrowed(text);
    // `<private>` in any case, found without copying the text
    let bytes = text.as_bytes();
    if memchr::memchr_iter(b'<', bytes).any(|i| {
        bytes
            .get(i..i + 9)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"<private>"))
    }) {
        out = Cow::Owned(PRIVATE.replace_all(&out, "[private]").into_owned());
    }
    // `out` in ASCII lower case, made once for the keywords and the gates,
    // and again only after a rule changed `out`
    let mut lower = None;
    let wanted = rules_with_keywords(&out, &mut lower);
    for (i, rule) in RULES.iter().enumerate() {
        if !wanted[i] {
            continue;
        }
        let lowered = lower.get_or_insert_with(|| out.to_ascii_lowercase());
        if !rule.gate.may_match(&out, lowered, rule.keywords) {
            continue;
        }
        let re = regex(i);
        if !re.is_match(&out) {
            continue;
        }
        let replaced = re
            .replace_all(&out, |caps: &regex::Captures| replacement(rule, caps))
            .into_owned();
        out = Cow::Owned(replaced);
        lower = None;
    }
    out
}

/// What a match of `rule` becomes: `[REDACTED:<kind>]` in place of the
/// secret, the rest of the match kept; the match unchanged when it holds
/// no secret after all.
fn replacement(rule: &Rule, caps: &regex::Captures) -> String {
    let whole = caps.get(0).expect("group 0 exists");
    let secret = match rule.secret {
        Secret::Whole => return format!("[REDACTED:{}]", rule.kind),
        Secret::Group(g) => caps.get(g),
        Secret::GroupNotWords(g) => caps.get(g).filter(|s| !reads_as_words(s.as_str())),
        Secret::Value(g) => caps.get(g).filter(|v| !names_a_variable(v.as_str())),
        Secret::Assigned => caps
            .get(2)
            .filter(|v| !names_a_variable(v.as_str()))
            .filter(|_| caps.get(1).is_some_and(|n| name_holds_a_secret(n.as_str()))),
    };
    let Some(secret) = secret else {
        return whole.as_str().to_string();
    };
    let w = whole.as_str();
    let start = secret.start() - whole.start();
    let end = secret.end() - whole.start();
    format!("{}[REDACTED:{}]{}", &w[..start], rule.kind, &w[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red(s: &str) -> String {
        redact(s).into_owned()
    }

    /// A process past `BULK` bytes searches with the DFA: it must want the
    /// same rules as the NFA, on every line of the secret corpus and on
    /// text in mixed case.
    #[test]
    fn the_bulk_automaton_finds_what_the_small_one_finds() {
        let corpus = include_str!("../../../tests/data/secrets.toml");
        let wanted = |(ac, owner): &(AhoCorasick, Vec<usize>), text: &str| {
            let mut rules: Vec<usize> = ac
                .find_overlapping_iter(text)
                .map(|m| owner[m.pattern().as_usize()])
                .collect();
            rules.sort_unstable();
            rules.dedup();
            rules
        };
        let scanned = |text: &str| -> Vec<usize> {
            rules_with_keywords(text, &mut None)
                .iter()
                .enumerate()
                .filter_map(|(i, w)| w.then_some(i))
                .collect()
        };
        let mut lines_with_keywords = 0;
        for line in corpus
            .lines()
            .chain(["GHP_X sK-AnT- Bearer TOKEN mysql -P", "ÄPI_KEY=x Ω://"])
        {
            let small = wanted(&KEYWORDS, line);
            assert_eq!(small, wanted(&KEYWORDS_DFA, line), "{line}");
            assert_eq!(small, scanned(line), "{line}");
            lines_with_keywords += usize::from(!small.is_empty());
        }
        assert!(lines_with_keywords > 50, "{lines_with_keywords}");
    }

    /// A gate passes over a rule's regex only where it cannot match: on
    /// every line of the secret corpus, on each line again with its case
    /// changed and its spaces made other white space, and on near misses
    /// the gates are written against.
    #[test]
    fn a_gate_holds_wherever_its_rule_matches() {
        let corpus = include_str!("../../../tests/data/secrets.toml");
        let near = [
            "curl https://me:s3cr3tpass@example.com/x",
            "git clone ssh://git:tok3nvalue@host:22/repo",
            "see https://example.com/a@b and cc://proj/session.jsonl",
            "SKabcdef0123456789abcdef0123456789",
            "SK0123456789ABCDEF0123456789abcdef and task",
            "Authorization: Basic\tdXNlcjpwYXNzd29yZDEyMzQ=",
            "authorization: BASIC\u{3000}dXNlcjpwYXNzd29yZDEyMzQ=",
            "basic \u{212A}dXNlcjpwYXNzd29yZDEyMzQ",
            "docker login -u me -p hunter2hunter2 registry.example.com",
            "podman   login registry -p=abcdef",
            "Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456",
            "token\tghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "machine api.example.com login me password hunter2",
            "machine api.example.com\n  login me\n  PaSsWoRd hunter2",
            "machine x login me paſsword hunter2",
            "db.example.com:5432:app:me:s3cr3tpw",
            "localhost:*:*:me:pw\\:with\\:colons",
            "\"client_secret\": \"abc123def456\"",
            "DB_PASSWORD  =  hunter2hunter2",
            "api-key: 'k3y-v4lue-1234'",
        ];
        let mut checked = 0;
        let lines = corpus.lines().chain(near).flat_map(|l| {
            [
                l.to_string(),
                l.to_ascii_uppercase(),
                l.to_ascii_lowercase(),
                l.replace(' ', "\t"),
                l.replace(' ', "\u{a0}"),
            ]
        });
        for line in lines {
            for (i, rule) in RULES.iter().enumerate() {
                if regex(i).is_match(&line) {
                    checked += 1;
                    assert!(
                        rule.gate
                            .may_match(&line, &line.to_ascii_lowercase(), rule.keywords),
                        "{}: {line}",
                        rule.kind
                    );
                }
            }
        }
        assert!(checked > 300, "{checked}");
        // whether a rule of `kind` would compile its regex for `text`
        let gated = |kind: &str, text: &str| {
            let wanted = rules_with_keywords(text, &mut None);
            let lower = text.to_ascii_lowercase();
            RULES
                .iter()
                .enumerate()
                .filter(|(i, r)| r.kind == kind && wanted[*i])
                .any(|(_, r)| r.gate.may_match(text, &lower, r.keywords))
        };
        // what the gates are for: the everyday words pass no regex
        assert!(!gated(
            "url-password",
            "see cc://-home-u-app/1f3.jsonl line 40"
        ));
        assert!(!gated("twilio-key", "ask for the task list"));
        assert!(!gated("basic-auth", "the basic idea"));
        assert!(!gated("bearer-token", "the token budget is 8000"));
        assert!(!gated("netrc-password", "check the machine learning job"));
        assert!(!gated(
            "pgpass-password",
            "standup at 10:30, demo at 14:05:30"
        ));
        assert!(!gated("password", "never pass secrets on the command line"));
    }

    #[test]
    fn keywords_are_sorted_out_per_rule_and_patterns_compile() {
        for i in 0..RULES.len() {
            regex(i);
        }
        for r in RULES {
            for k in r.keywords {
                assert_eq!(*k, k.to_lowercase(), "{}: keywords are lower case", r.kind);
            }
        }
    }

    #[test]
    fn provider_keys_are_replaced() {
        let cases = [
            (
                "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123",
                "anthropic-key",
            ),
            (
                "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345",
                "openai-key",
            ),
            ("AKIAIOSFODNN7EXAMPLE", "aws-access-key"),
            (
                "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                "github-token",
            ),
            ("xoxb-123456789012-abcdefghij", "slack-token"),
            ("AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "google-api-key"),
            ("sk_live_abcdefghijklmnop1234", "stripe-key"),
            ("hf_abcdefghijklmnopqrstuvwxyzABCDEF", "huggingface-token"),
            ("glpat-abcdefghijklmnopqrst", "gitlab-token"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "jwt",
            ),
            (
                "https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKlMnOpQrStUvWxYz",
                "discord-webhook",
            ),
        ];
        for (text, kind) in cases {
            let out = red(text);
            assert!(
                out.contains(&format!("[REDACTED:{kind}]")),
                "{text} -> {out}"
            );
        }
    }

    #[test]
    fn labels_stay_and_values_go() {
        assert_eq!(
            red("password = hunter2hunter2"),
            "password = [REDACTED:password]"
        );
        assert_eq!(
            red("Authorization: Bearer abcdefghijklmnopqrstuvwxyz.123"),
            "Authorization: Bearer [REDACTED:bearer-token]"
        );
        assert_eq!(
            red("postgres://admin:s3cr3tpass@db.example.com:5432/app"),
            "postgres://admin:[REDACTED:url-password]@db.example.com:5432/app"
        );
        assert_eq!(
            red(r#"{"api_key": "abcd1234efgh"}"#),
            r#"{"api_key": "[REDACTED:password]"}"#
        );
    }

    #[test]
    fn names_that_end_in_a_keyword_are_caught() {
        for (text, secret) in [
            ("DATABASE_PASSWORD=Xk9!mQ2#vL", "Xk9!mQ2#vL"),
            (
                "TWILIO_AUTH_TOKEN=9f3b2c1d8e7a6b5c4d3e2f1a0b9c8d7e",
                "9f3b2c1d8e7a6b5c4d3e2f1a0b9c8d7e",
            ),
            (
                "AZURE_CLIENT_SECRET=Qw8~rT5.yU2_iO9-pA6",
                "Qw8~rT5.yU2_iO9-pA6",
            ),
            (
                "DD_API_KEY=4a7f1c9e2b8d5f3a6c0e9b1d7f4a2c8e",
                "4a7f1c9e2b8d5f3a6c0e9b1d7f4a2c8e",
            ),
            (
                "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=bXlGYWtlS2V5Rm9yVGVzdHNPbmx5MTIzNDU2Nzg5MA==;EndpointSuffix=core.windows.net",
                "bXlGYWtlS2V5Rm9yVGVzdHNPbmx5MTIzNDU2Nzg5MA==",
            ),
            // the name's keyword without its `_`
            ("PRIVATEKEY=q8Zr2mVx7Lw4", "q8Zr2mVx7Lw4"),
            ("signingKey: 'Hs9vT2kq7Wmz'", "Hs9vT2kq7Wmz"),
            ("sshpass -p 'S3cure!Pass' ssh deploy@host", "S3cure!Pass"),
            ("docker login -u me -p Dk8rPw55 ghcr.io", "Dk8rPw55"),
            ("mysql -u root -pTr0ub4dor3 app", "Tr0ub4dor3"),
            (
                "curl -u admin:Adm1nPa55 https://api.example.com",
                "Adm1nPa55",
            ),
            (
                "docker login --password Dk3rHubP4ss registry.io",
                "Dk3rHubP4ss",
            ),
        ] {
            let out = red(text);
            assert!(!out.contains(secret), "{text} -> {out}");
            assert!(out.contains("[REDACTED:"), "{text} -> {out}");
        }
    }

    #[test]
    fn look_alikes_survive() {
        for text in [
            "fixed in commit 3f9c2a7e1b0d4c6a8e2f1b3d5c7a9e0f1b2d3c4e",
            "request id 123e4567-e89b-12d3-a456-426614174000",
            r#""integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR58LwNb5VxkTr4ig==""#,
            "password = ${DB_PASSWORD}",
            "export PASSWORD=$DB_PASSWORD",
            "the token bucket refills every second",
            "use a token bucket for rate limits",
            "see https://example.com/docs",
        ] {
            assert_eq!(red(text), text, "changed: {text}");
        }
    }

    #[test]
    fn private_key_blocks_go_whole_even_when_cut() {
        let pem = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter";
        assert_eq!(red(pem), "before\n[REDACTED:private-key]\nafter");
        let cut = "x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk";
        assert_eq!(red(cut), "x [REDACTED:private-key]");
        let cut_then_prose =
            "x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n\n## Next\nkept";
        assert_eq!(
            red(cut_then_prose),
            "x [REDACTED:private-key]\n\n## Next\nkept"
        );
    }

    #[test]
    fn line_by_line_keeps_a_key_block_hidden_and_the_count_true() {
        let pem = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter <private>a\nb</private> c";
        let mut l = Lines::default();
        let out: Vec<String> = pem.lines().map(|x| l.line(x).into_owned()).collect();
        assert_eq!(out.len(), 7);
        assert_eq!(out[0], "before");
        assert!(
            out[1..5].iter().all(|x| x.contains("REDACTED:private-key")),
            "{out:?}"
        );
        assert_eq!(out[5], "after [private]");
        assert_eq!(out[6], "[private] c");
    }

    #[test]
    fn private_spans_in_any_case_are_never_kept() {
        assert_eq!(red("a <Private>diary</Private> b"), "a [private] b");
        let mut l = Lines::default();
        assert_eq!(l.line("x <PRIVATE>one"), "x [private]");
        assert_eq!(l.line("two</Private> y"), "[private] y");
    }

    #[test]
    fn private_spans_are_never_kept() {
        assert_eq!(red("a <private>my diary</private> b"), "a [private] b");
        assert_eq!(red("a <private>unclosed\nmore"), "a [private]");
    }

    /// Issue 27: a token after a colour code or a written-out `\n` was
    /// kept (the ASCII `\b` saw the `m` and the `n` as part of its word).
    #[test]
    fn a_token_after_a_colour_code_or_an_escaped_newline_is_caught() {
        let ghp = "ghp_lbJsF1PV9cxSLhFPjvDv9rVVmLvqmXAGDIie";
        let ant = "sk-ant-api03-33YXR33uipr3ysK_XQwIQlmj-v1dbbxG_cN9p";
        for text in [
            format!("\x1b[32m{ghp}\x1b[0m"),
            format!("ok \x1b[1;32m{ghp}"),
            format!("a\x1b[2K{ghp}"),
            format!(r#"{{"text": "\u001b[32m{ghp}\u001b[0m"}}"#),
            format!(r"echo -e '\e[32m{ghp}'"),
            format!(r"'line\n{ant}'"),
            format!(r"a\t{ant}"),
            r"AKIA: x\nAKIAV4UDYBLQ1267RJLS".to_string(),
        ] {
            let out = red(&text);
            assert!(
                !out.contains(ghp) && !out.contains(ant) && !out.contains("AKIAV4UDYBLQ1267RJLS"),
                "{text:?} -> {out:?}"
            );
            assert!(!out.contains('\x1b'), "{out:?}");
        }
        // still a word start: no token inside another word
        assert_eq!(red(&format!("x{ghp}")), format!("x{ghp}"));
    }

    #[test]
    fn terminal_controls_are_stripped_and_a_token_they_split_is_caught() {
        assert_eq!(
            red("\x1b]52;c;Y29weQ==\x07done \x1b]0;title\x07\x1b[2Kok\x07"),
            "done ok"
        );
        // a BEL inside a token: gone, and the token it split is whole again
        let out = red("ghp_lbJsF1PV9cxSLhFPjvD\x07v9rVVmLvqmXAGDIie");
        assert_eq!(out, "[REDACTED:github-token]");
        assert!(matches!(redact("plain\ttext\r\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn issue_27_formats_are_caught() {
        for (text, secret, kind) in [
            (
                "docker login -u acme -p PESr9smeeq0Ivqx1 registry.io",
                "PESr9smeeq0Ivqx1",
                "password",
            ),
            (
                "docker login -p=PESr9smeeq0Ivqx1",
                "PESr9smeeq0Ivqx1",
                "password",
            ),
            (
                "machine h login me password 0zlp6pF0eU6OKPfN1B",
                "0zlp6pF0eU6OKPfN1B",
                "netrc-password",
            ),
            (
                "machine h\n  login me\n  password 0zlp6pF0eU6OKPfN1B\n",
                "0zlp6pF0eU6OKPfN1B",
                "netrc-password",
            ),
            (
                "machine h password 0zlp6pF0eU6OKPfN1B",
                "0zlp6pF0eU6OKPfN1B",
                "netrc-password",
            ),
            (
                "default login me password 0zlp6pF0eU6OKPfN1B",
                "0zlp6pF0eU6OKPfN1B",
                "netrc-password",
            ),
            (
                "db.internal:5432:app:deploy:XAVdQCwa20PEqiN8vNPo",
                "XAVdQCwa20PEqiN8vNPo",
                "pgpass-password",
            ),
            (
                "cat ~/.pgpass\n*:*:*:postgres:XAVdQCwa20\\:PEqiN8\nnext",
                "XAVdQCwa20",
                "pgpass-password",
            ),
            (
                r#"{"auths": {"ghcr.io": {"auth": "YWNtZTpUMEhqZ3pXdDZWWTdjWFJIZms="}}}"#,
                "YWNtZTpUMEhqZ3pXdDZWWTdjWFJIZms=",
                "docker-auth",
            ),
            (
                r#"{\"auth\": \"YWNtZTpUMEhqZ3pXdDZWWTdjWFJIZms=\"}"#,
                "YWNtZTpUMEhqZ3pXdDZWWTdjWFJIZms=",
                "docker-auth",
            ),
            (
                "https://a.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=DTjqIdl9PaCXjw4KKAetC30Dwax%2BkYq%3D",
                "DTjqIdl9PaCXjw4KKAetC30Dwax",
                "azure-sas",
            ),
            (
                "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",
                "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",
                "google-oauth-secret",
            ),
            (
                "key-de05b067c6ac2b1522974ef37b80f59e",
                "key-de05b067c6ac2b1522974ef37b80f59e",
                "mailgun-key",
            ),
            (
                "Private-Lines: 2\nB3MAtQhDp8kF3ONfqnZlVAvcx4g4gCJzm4UQAYyubSEzPW8RiFjgqg+l5nrN+QWR\ni/SU9M+yCECSnNLvZ+I1Hdxo7fh5EHm\nPrivate-MAC: 5f1c0b",
                "i/SU9M+yCECSnNLvZ+I1Hdxo7fh5EHm",
                "putty-private-key",
            ),
        ] {
            let out = red(text);
            assert!(!out.contains(secret), "{text} -> {out}");
            assert!(
                out.contains(&format!("[REDACTED:{kind}]")),
                "{text} -> {out}"
            );
        }
        // the parts around the secret stay
        assert_eq!(
            red("Private-Lines: 1\nB3MAtQhDp8kF3ONfqnZlVAvcx4g4gCJzm4UQ\nPrivate-MAC: 5f1c0b"),
            "Private-Lines: 1\n[REDACTED:putty-private-key]\nPrivate-MAC: 5f1c0b"
        );
        assert_eq!(
            red("cat ~/.pgpass\nh:5432:db:u:XAVdQCwa20\nh:*:db:u:PEqiN8vNPo\n"),
            "cat ~/.pgpass\nh:5432:db:u:[REDACTED:pgpass-password]\nh:*:db:u:[REDACTED:pgpass-password]\n"
        );
    }

    /// Issue 27: ordinary config the rules hid.
    #[test]
    fn config_that_only_looks_like_a_secret_survives() {
        for text in [
            "max_tokens = 128000",
            "tokenizer: cl100k_base",
            "partition_key = tenant_id",
            "primary_key: order_number",
            "bypass_cache: always",
            "secretName: tls-cert-prod",
            r#"<div class="sk-folding-cube-container-wrapper">"#,
            "token_endpoint: https://oauth2.example.com/token",
            "PWD=/home/u/app OLDPWD=/home/u",
            "DB_PASSWORD_FILE=/run/secrets/db_password",
            "credential.helper=osxkeychain",
            // netrc and pgpass look-alikes
            "the machine account password rotated every 30 days",
            "by default password login is off",
            "at 10:30:45:00:01 and 00:11:22:33:44:55",
            "hostname:port:database:username:password",
        ] {
            assert_eq!(red(text), text, "changed: {text}");
        }
        // the same names with a secret in them are still caught
        for (text, secret) in [
            ("max_tokens_secret = Xk9mQ2vLzz", "Xk9mQ2vLzz"),
            ("api_key = Xk9mQ2vLzz", "Xk9mQ2vLzz"),
            ("STRIPE_KEY=Xk9mQ2vLzz", "Xk9mQ2vLzz"),
            ("secret_key_base: Xk9mQ2vLzz", "Xk9mQ2vLzz"),
            ("PGPASSWORD=Xk9mQ2vLzz", "Xk9mQ2vLzz"),
            ("DB_PWD=Xk9mQ2vLzz", "Xk9mQ2vLzz"),
            ("sk-proj-5g6ncBvLqZKnbxg2iqYxZ_SB2", "5g6ncBvLqZKnbxg2iqYxZ"),
            (
                "sk-6f1c0b6d2a7e9f3c8b4a1d0e6f2c9b7a",
                "6f1c0b6d2a7e9f3c8b4a1d0e6f2c9b7a",
            ),
        ] {
            let out = red(text);
            assert!(!out.contains(secret), "{text} -> {out}");
        }
    }

    #[test]
    fn redaction_is_idempotent() {
        for text in [
            "password = hunter2hunter2 and ghp_lbJsF1PV9cxSLhFPjvDv9rVVmLvqmXAGDIie",
            "machine h login me password 0zlp6pF0eU6OKPfN1B",
            "h:5432:db:u:XAVdQCwa20 \x1b[31mred\x1b[0m",
        ] {
            let once = red(text);
            assert_eq!(red(&once), once);
        }
    }

    #[test]
    fn ordinary_text_is_untouched_and_borrowed() {
        let s = "The indexer reads transcripts and writes chunks to SQLite.";
        assert!(matches!(redact(s), Cow::Borrowed(_)));
    }
}
