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
//! are stripped ([`controls`]). The rules favour recall: a false positive
//! costs a word of context, a miss leaks a key.
//!
//! Speed: the hooks redact what they inject on every prompt, so a rule is
//! compiled only when the text holds one of its keywords (one
//! case-insensitive Aho-Corasick pass finds them all), the way gitleaks
//! gates its rules. Text with no keyword and no control character is
//! returned borrowed.

use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::AhoCorasick;
use regex::Regex;

pub mod controls;

struct Rule {
    kind: &'static str,
    /// Lower-case strings, one of which every match contains.
    keywords: &'static [&'static str],
    pattern: &'static str,
    /// Capture group holding the secret itself (0 = the whole match); the
    /// rest of the match (a `password=` label, say) is kept for context.
    group: usize,
}

/// `NAME<sep>VALUE` where NAME holds one of `$names`: the value is not a
/// variable reference (`$X`, `${X}`, `%X%`), not a placeholder in angle
/// brackets, and at least six characters.
macro_rules! assignment {
    ($names:literal) => {
        concat!(
            r#"(?i)(?:^|[^a-z0-9])[a-z0-9_.\-]*(?:"#,
            $names,
            r#")[a-z0-9_\-]*["']?\s*(?::=|=>|=|:)\s*"#,
            r#"["']?((?:[^\s"'`,;<>$%{}()\[\]\\]|\\.){6,})"#
        )
    };
}

const RULES: &[Rule] = &[
    Rule {
        kind: "private-key",
        keywords: &["private key"],
        // To its END line; a block cut short (no END) to the next blank
        // line, not to the end of the text: in a summary or an injection,
        // everything after it would go too.
        pattern: r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[^\r\n]*(?:\r?\n[ \t]*\S[^\r\n]*)*)",
        group: 0,
    },
    Rule {
        kind: "anthropic-key",
        keywords: &["sk-ant-"],
        pattern: r"(?-u:\b)sk-ant-[A-Za-z0-9_\-]{20,}",
        group: 0,
    },
    Rule {
        kind: "openai-key",
        keywords: &["sk-"],
        pattern: r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        group: 0,
    },
    Rule {
        kind: "aws-access-key",
        keywords: &["akia", "asia", "abia", "acca", "a3t"],
        pattern: r"(?-u:\b)(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?-u:\b)",
        group: 0,
    },
    Rule {
        kind: "github-token",
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        pattern: r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        group: 0,
    },
    Rule {
        kind: "gitlab-token",
        keywords: &["glpat-", "gldt-", "glptt-", "glrt-"],
        pattern: r"(?-u:\b)gl(?:pat|dt|ptt|rt)-[A-Za-z0-9_\-]{20,}",
        group: 0,
    },
    Rule {
        kind: "slack-token",
        keywords: &["xox"],
        pattern: r"(?-u:\b)xox[abposre]-[A-Za-z0-9\-]{10,}",
        group: 0,
    },
    Rule {
        kind: "slack-webhook",
        keywords: &["hooks.slack.com"],
        pattern: r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+",
        group: 0,
    },
    Rule {
        kind: "discord-webhook",
        keywords: &["discord"],
        pattern: r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_\-]+",
        group: 0,
    },
    Rule {
        kind: "google-api-key",
        keywords: &["aiza"],
        pattern: r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}",
        group: 0,
    },
    Rule {
        kind: "stripe-key",
        keywords: &["_live_", "_test_"],
        pattern: r"(?-u:\b)(?:sk|rk|pk|whsec)_(?:live|test)_[0-9A-Za-z]{16,}",
        group: 0,
    },
    Rule {
        kind: "stripe-key",
        keywords: &["whsec_"],
        pattern: r"(?-u:\b)whsec_[0-9A-Za-z]{24,}",
        group: 0,
    },
    Rule {
        kind: "huggingface-token",
        keywords: &["hf_"],
        pattern: r"(?-u:\b)hf_[A-Za-z0-9]{30,}",
        group: 0,
    },
    Rule {
        kind: "npm-token",
        keywords: &["npm_"],
        pattern: r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)",
        group: 0,
    },
    Rule {
        kind: "pypi-token",
        keywords: &["pypi-"],
        pattern: r"(?-u:\b)pypi-AgE[A-Za-z0-9_\-]{50,}",
        group: 0,
    },
    Rule {
        kind: "sendgrid-key",
        keywords: &["sg."],
        pattern: r"(?-u:\b)SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}",
        group: 0,
    },
    Rule {
        kind: "twilio-key",
        keywords: &["sk"],
        pattern: r"(?-u:\b)SK[0-9a-fA-F]{32}(?-u:\b)",
        group: 0,
    },
    Rule {
        kind: "shopify-token",
        keywords: &["shpat_", "shpss_", "shpca_", "shppa_"],
        pattern: r"(?-u:\b)shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
        group: 0,
    },
    Rule {
        kind: "digitalocean-token",
        keywords: &["dop_v1_", "doo_v1_", "dor_v1_"],
        pattern: r"(?-u:\b)do[opr]_v1_[a-f0-9]{64}",
        group: 0,
    },
    Rule {
        kind: "linear-key",
        keywords: &["lin_api_"],
        pattern: r"(?-u:\b)lin_api_[A-Za-z0-9]{40}",
        group: 0,
    },
    Rule {
        kind: "notion-token",
        keywords: &["secret_", "ntn_"],
        pattern: r"(?-u:\b)(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})",
        group: 0,
    },
    Rule {
        kind: "telegram-bot-token",
        keywords: &[":aa"],
        // no boundary before the digits: in a URL the token follows `bot`
        // (`https://api.telegram.org/bot<token>/getMe`)
        pattern: r"[0-9]{8,10}:AA[0-9A-Za-z_\-]{33}",
        group: 0,
    },
    // Rules below follow gitleaks' list (MIT) for services whose tokens
    // carry a fixed prefix.
    Rule {
        kind: "age-secret-key",
        keywords: &["age-secret-key-1"],
        pattern: r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        group: 0,
    },
    Rule {
        kind: "vault-token",
        keywords: &["hvs.", "hvb.", "hvr."],
        pattern: r"(?-u:\b)hv[sbr]\.[A-Za-z0-9_\-]{24,}",
        group: 0,
    },
    Rule {
        kind: "dockerhub-token",
        keywords: &["dckr_pat_", "dckr_oat_"],
        pattern: r"(?-u:\b)dckr_(?:pat|oat)_[A-Za-z0-9_\-]{27,}",
        group: 0,
    },
    Rule {
        kind: "databricks-token",
        keywords: &["dapi"],
        pattern: r"(?-u:\b)dapi[a-f0-9]{32}(?:-[0-9])?(?-u:\b)",
        group: 0,
    },
    Rule {
        kind: "newrelic-key",
        keywords: &["nrak-", "nrjs-", "nrii-"],
        pattern: r"(?-u:\b)NR(?:AK|JS|II)-[A-Za-z0-9]{19,32}",
        group: 0,
    },
    Rule {
        kind: "planetscale-token",
        keywords: &["pscale_"],
        pattern: r"(?-u:\b)pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.=]{32,64}",
        group: 0,
    },
    Rule {
        kind: "grafana-token",
        keywords: &["glsa_", "glc_"],
        pattern: r"(?-u:\b)(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})",
        group: 0,
    },
    Rule {
        kind: "sendinblue-key",
        keywords: &["xkeysib-"],
        pattern: r"(?-u:\b)xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}",
        group: 0,
    },
    Rule {
        kind: "square-token",
        keywords: &["sq0csp-", "sq0atp-", "eaaa"],
        pattern: r"(?-u:\b)(?:sq0csp-[0-9A-Za-z_\-]{43}|sq0atp-[0-9A-Za-z_\-]{22}|EAAA[0-9A-Za-z_\-]{60})",
        group: 0,
    },
    Rule {
        kind: "supabase-token",
        keywords: &["sbp_"],
        pattern: r"(?-u:\b)sbp_[a-f0-9]{40}",
        group: 0,
    },
    Rule {
        kind: "postman-key",
        keywords: &["pmak-"],
        pattern: r"(?-u:\b)PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
        group: 0,
    },
    Rule {
        kind: "atlassian-token",
        keywords: &["atatt3"],
        pattern: r"(?-u:\b)ATATT3[A-Za-z0-9_\-=]{186}",
        group: 0,
    },
    Rule {
        kind: "jwt",
        keywords: &["eyj"],
        pattern: r"(?-u:\b)eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        group: 0,
    },
    Rule {
        kind: "bearer-token",
        keywords: &["bearer", "token "],
        pattern: r"(?i)(?-u:\b)(?:bearer|token)\s+([A-Za-z0-9._~+/\-]{20,}=*)",
        group: 1,
    },
    Rule {
        kind: "basic-auth",
        keywords: &["basic"],
        pattern: r"(?i)(?-u:\b)basic\s+([A-Za-z0-9+/]{16,}={0,2})",
        group: 1,
    },
    // scheme://user:password@host
    Rule {
        kind: "url-password",
        keywords: &["://"],
        pattern: r"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:([^\s@/]{3,})@",
        group: 1,
    },
    // Azure storage: AccountKey=...; SharedAccessKey=...
    Rule {
        kind: "azure-key",
        keywords: &["accountkey", "sharedaccesskey"],
        pattern: r"(?i)(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/=]{20,})",
        group: 1,
    },
    // Passwords on command lines: sshpass -p X, mysql -pX, curl -u user:X,
    // docker login --password X
    Rule {
        kind: "password",
        keywords: &["sshpass", "mysql", "curl", "--password", "-p"],
        pattern: r#"(?:sshpass\s+-p\s*|mysql(?:dump|admin)?\b[^\n|;&]*?\s-p|curl\b[^\n|;&]*?\s(?:-u|--user)\s+[^\s:]+:|--password(?:=|\s+))['"]?([^\s'"]{3,})"#,
        group: 1,
    },
    // NAME_PASSWORD=..., "client_secret": "...", DD_API_KEY=...: a keyword
    // anywhere in the name (`_` is a word character, so no \b before it)
    Rule {
        kind: "password",
        keywords: &[
            "pass",
            "pwd",
            "secret",
            "token",
            "api_key",
            "apikey",
            "api-key",
            "access_key",
            "accesskey",
            "private_key",
            "credential",
            "auth_key",
            "signing_key",
            "_key",
        ],
        pattern: assignment!(
            "passw(?:or)?d|pass|pwd|secret|token|api_?key|apikey|api-key|access_?key|private_?key|credentials?|auth_?key|signing_?key|_key"
        ),
        group: 1,
    },
];

/// The keywords of all rules in one automaton, and the rule each belongs to.
static KEYWORDS: LazyLock<(AhoCorasick, Vec<usize>)> = LazyLock::new(|| {
    let mut words = Vec::new();
    let mut owner = Vec::new();
    for (i, r) in RULES.iter().enumerate() {
        for k in r.keywords {
            words.push(*k);
            owner.push(i);
        }
    }
    // A contiguous NFA, not the DFA the builder picks for a set this small:
    // building the DFA was a third of the per-prompt hook's instructions
    // (callgrind, 51 M of 138 M in a debug build); searching the short
    // texts pms injects is as fast either way.
    let ac = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
        .build(words)
        .expect("valid keywords");
    (ac, owner)
});

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
    // The rules run again after the strip, so that a token a control cut
    // in two (`ghp_abc\x07def...`) does not come out whole.
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
    let (ac, owner) = &*KEYWORDS;
    let mut wanted = vec![false; RULES.len()];
    let mut any = false;
    for m in ac.find_overlapping_iter(out.as_ref()) {
        wanted[owner[m.pattern().as_usize()]] = true;
        any = true;
    }
    if !any {
        return out;
    }
    for (i, rule) in RULES.iter().enumerate() {
        if !wanted[i] {
            continue;
        }
        let re = regex(i);
        if !re.is_match(&out) {
            continue;
        }
        let replaced = re
            .replace_all(&out, |caps: &regex::Captures| {
                let whole = caps.get(0).expect("group 0 exists");
                match caps.get(rule.group) {
                    Some(secret) if rule.group > 0 && names_a_variable(secret.as_str()) => {
                        whole.as_str().to_string()
                    }
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

/// A value that names an environment variable (`api_key_env =
/// "OPENAI_API_KEY"`, `token: GITHUB_TOKEN`): upper case, digits and at least
/// one underscore. It says where a secret is, not what it is; redacting it
/// hid pms's own `embeddings.api_key_env` setting in notes and answers.
fn names_a_variable(value: &str) -> bool {
    value.starts_with(|c: char| c.is_ascii_uppercase())
        && value.contains('_')
        && value
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Redaction one line at a time, for readers that show a range of a file:
/// a private key block spans lines, so a range that starts inside one must
/// still hide it. Feed every line from the top (the ones before the range
/// too); each comes back redacted, the line count unchanged.
#[derive(Debug, Default)]
pub struct Lines {
    in_private_key: bool,
    in_private_span: bool,
}

impl Lines {
    pub fn line<'a>(&mut self, line: &'a str) -> Cow<'a, str> {
        // ASCII lower-casing keeps byte offsets: `<Private>` is found too.
        let lower = line.to_ascii_lowercase();
        if self.in_private_span {
            if let Some(i) = lower.find("</private>") {
                self.in_private_span = false;
                return Cow::Owned(format!("[private]{}", redact(&line[i + 10..])));
            }
            return Cow::Borrowed("[private]");
        }
        if self.in_private_key {
            if line.contains("-----END") && line.contains("PRIVATE KEY") {
                self.in_private_key = false;
            }
            return Cow::Borrowed("[REDACTED:private-key]");
        }
        if let Some(b) = line.find("-----BEGIN")
            && line[b..].contains("PRIVATE KEY")
        {
            // open unless the same line also ends the block
            let rest = &line[b + 10..];
            self.in_private_key = !rest
                .find("-----END")
                .is_some_and(|e| rest[e..].contains("PRIVATE KEY"));
        }
        if let Some(start) = lower.find("<private>")
            && !lower[start..].contains("</private>")
        {
            self.in_private_span = true;
            return Cow::Owned(format!("{}[private]", redact(&line[..start])));
        }
        redact(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red(s: &str) -> String {
        redact(s).into_owned()
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
            ("sshpass -p 'S3cure!Pass' ssh deploy@host", "S3cure!Pass"),
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
        let mut l = Lines::default();
        assert_eq!(l.line("\x1b]0;title\x07a"), "a");
        assert_eq!(l.line("\x1b[31mb\x1b[0m"), "b");
    }

    #[test]
    fn ordinary_text_is_untouched_and_borrowed() {
        let s = "The indexer reads transcripts and writes chunks to SQLite.";
        assert!(matches!(redact(s), Cow::Borrowed(_)));
    }
}
