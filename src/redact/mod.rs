//! Keeping secrets out of the index and out of tool output.
//!
//! Transcripts hold whatever passed through a terminal: API keys pasted
//! into a prompt, tokens echoed by a command, a `.env` file read by a tool.
//! Before any text is stored (or returned by `memory_get`), every match of
//! the patterns below is replaced by `[REDACTED:<kind>]`, and everything
//! between `<private>` and `</private>` is dropped. The patterns favour
//! recall: a false positive costs a word of context, a miss leaks a key.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

struct Rule {
    kind: &'static str,
    re: Regex,
    /// Capture group holding the secret itself (0 = the whole match); the rest
    /// of the match (a `password=` label, say) is kept for context.
    group: usize,
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let r = |kind, pattern: &str, group| Rule {
        kind,
        re: Regex::new(pattern).expect("redaction patterns are valid"),
        group,
    };
    vec![
        r(
            "private-key",
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
            0,
        ),
        r("anthropic-key", r"(?-u:\b)sk-ant-[A-Za-z0-9_\-]{20,}", 0),
        r(
            "openai-key",
            r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
            0,
        ),
        r(
            "aws-access-key",
            r"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?-u:\b)",
            0,
        ),
        r(
            "aws-secret",
            r#"(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})"#,
            1,
        ),
        r(
            "github-token",
            r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
            0,
        ),
        r("gitlab-token", r"(?-u:\b)glpat-[A-Za-z0-9_\-]{20,}", 0),
        r("slack-token", r"(?-u:\b)xox[abposr]-[A-Za-z0-9\-]{10,}", 0),
        r(
            "slack-webhook",
            r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+",
            0,
        ),
        r("google-api-key", r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}", 0),
        r(
            "stripe-key",
            r"(?-u:\b)(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}",
            0,
        ),
        r("huggingface-token", r"(?-u:\b)hf_[A-Za-z0-9]{30,}", 0),
        r("npm-token", r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)", 0),
        r(
            "sendgrid-key",
            r"(?-u:\b)SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}",
            0,
        ),
        r("twilio-key", r"(?-u:\b)SK[0-9a-fA-F]{32}(?-u:\b)", 0),
        r(
            "jwt",
            r"(?-u:\b)eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
            0,
        ),
        r(
            "bearer-token",
            r"(?i)(?-u:\b)(?:bearer|token)\s+([A-Za-z0-9._~+/\-]{20,}=*)",
            1,
        ),
        r(
            "basic-auth",
            r"(?i)(?-u:\b)basic\s+([A-Za-z0-9+/]{16,}={0,2})",
            1,
        ),
        // scheme://user:password@host
        r(
            "url-password",
            r"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:([^\s@/]{3,})@",
            1,
        ),
        r(
            "password",
            r#"(?i)(?-u:\b)(?:password|passwd|pwd|secret|client_secret|api_?key|apikey|access_?token|auth_?token|private_?key)["']?\s*[:=]\s*["']?([^\s"',;]{6,})"#,
            1,
        ),
    ]
});

static PRIVATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?is)<private>.*?(?:</private>|\z)").expect("valid"));

/// Cheap pre-check: every rule's match contains one of these, so text with
/// none of them is returned as is without running the rules.
const TRIGGERS: &[&str] = &[
    "-----BEGIN",
    "sk-",
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "ecret",
    "ECRET",
    "gh",
    "github_pat_",
    "glpat-",
    "xox",
    "hooks.slack.com",
    "AIza",
    "_live_",
    "_test_",
    "hf_",
    "npm_",
    "SG.",
    "SK",
    "eyJ",
    "earer",
    "EARER",
    "oken",
    "OKEN",
    "asic",
    "ASIC",
    "://",
    "ass",
    "ASS",
    "pwd",
    "PWD",
    "pi_key",
    "PI_KEY",
    "pikey",
    "PIKEY",
    "piKey",
    "rivate",
    "RIVATE",
];

/// All triggers in one automaton: one pass over the text decides whether
/// any rule can match.
static TRIGGER_SCAN: LazyLock<aho_corasick::AhoCorasick> =
    LazyLock::new(|| aho_corasick::AhoCorasick::new(TRIGGERS).expect("valid triggers"));

/// `text` with secrets replaced and private spans removed.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out: Cow<str> = Cow::Borrowed(text);
    if out.contains("<private>") || out.contains("<PRIVATE>") {
        out = Cow::Owned(PRIVATE.replace_all(&out, "[private]").into_owned());
    }
    if !TRIGGER_SCAN.is_match(out.as_ref()) {
        return out;
    }
    for rule in RULES.iter() {
        if !rule.re.is_match(&out) {
            continue;
        }
        let replaced = rule
            .re
            .replace_all(&out, |caps: &regex::Captures| {
                let whole = caps.get(0).expect("group 0 exists");
                match caps.get(rule.group) {
                    Some(secret) if rule.group > 0 => {
                        let start = secret.start() - whole.start();
                        let end = secret.end() - whole.start();
                        let w = whole.as_str();
                        format!("{}[REDACTED:{}]{}", &w[..start], rule.kind, &w[end..])
                    }
                    _ => format!("[REDACTED:{}]", rule.kind),
                }
            })
            .into_owned();
        out = Cow::Owned(replaced);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red(s: &str) -> String {
        redact(s).into_owned()
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
    fn private_key_blocks_go_whole_even_when_cut() {
        let pem = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter";
        assert_eq!(red(pem), "before\n[REDACTED:private-key]\nafter");
        let cut = "x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk";
        assert_eq!(red(cut), "x [REDACTED:private-key]");
    }

    #[test]
    fn private_spans_are_never_kept() {
        assert_eq!(red("a <private>my diary</private> b"), "a [private] b");
        assert_eq!(red("a <private>unclosed\nmore"), "a [private]");
    }

    #[test]
    fn ordinary_text_is_untouched_and_borrowed() {
        let s = "The indexer reads transcripts and writes chunks to SQLite.";
        assert!(matches!(redact(s), Cow::Borrowed(_)));
        assert_eq!(
            red("use a token bucket for rate limits"),
            "use a token bucket for rate limits"
        );
        assert_eq!(
            red("see https://example.com/docs"),
            "see https://example.com/docs"
        );
    }
}
