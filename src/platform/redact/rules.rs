//! The rules: what each kind of secret looks like, the cheap keywords that
//! gate its regex, and which part of a match is the secret.

use memchr::memmem;

pub(super) struct Rule {
    pub(super) kind: &'static str,
    /// Lower-case strings, one of which every match contains.
    pub(super) keywords: &'static [&'static str],
    /// What must hold, past a keyword, before the regex is compiled.
    pub(super) gate: Gate,
    pub(super) pattern: &'static str,
    pub(super) secret: Secret,
}

/// Which part of a match is the secret; the rest of the match (a
/// `password=` label, the character before a token) is kept for context.
#[derive(Clone, Copy)]
pub(super) enum Secret {
    /// The whole match (a key block, a webhook URL).
    Whole,
    /// A capture group (a token after the boundary `token!` puts first).
    Group(usize),
    /// A capture group, kept when it reads as words joined by `-` or `_`
    /// (a random token has a digit or a capital).
    GroupNotWords(usize),
    /// A capture group holding a value, kept when it names an environment
    /// variable (`Bearer GITHUB_TOKEN`).
    Value(usize),
    /// `name = value` (`assignment!`): group 1 the name, group 2 the value;
    /// kept when the name does not hold a secret (`max_tokens`,
    /// `secretName`, `partition_key`) or the value names a variable.
    Assigned,
}

/// A cheap check, after a keyword is found and before the regex is compiled
/// (0.1 to 0.6 ms a rule on a quiet machine, up to 2 ms on a busy one, on
/// the first text that wants it), that a match could be there at all. It
/// must hold wherever the regex matches (a test checks it on the secret
/// corpus). Gated: the rules whose keywords are everyday words or parts
/// of them, or of what pms itself writes (`sk` in "task", `://` in every
/// `cc://` reference, "basic", "token", "machine", a time's `10:30`, "pass"
/// in "pass secrets"), which compiled their regexes on most texts a hook
/// injects: four of them at every session start with continuity.
#[derive(Clone, Copy, Debug)]
pub(super) enum Gate {
    /// The keyword is enough.
    Keyword,
    /// `scheme://user:password@`: an `@` after `://`, before any white
    /// space or `/`.
    CredentialsInUrl,
    /// `prefix`, in this case, followed by `digits` hex digits.
    HexAfter { prefix: &'static str, digits: usize },
    /// One of `words` in any case, white space, then `chars` characters of
    /// the class `of`.
    CharsAfterWord {
        words: &'static [&'static str],
        chars: usize,
        of: fn(char) -> bool,
    },
    /// The text also says this word, in any case (the `.netrc` rules'
    /// `password`).
    AlsoSays(&'static str),
    /// `host:port:database:user:password`: a `:port:` (or `:*:`), then two
    /// more colons before white space.
    PgpassFields,
    /// `name = value`: a keyword, the rest of the name, a quote at most,
    /// white space, then `=` or `:`.
    AssignedAfterKeyword,
}

impl Gate {
    /// Whether a match of the rule could be in `text` (`lower`: the text
    /// in ASCII lower case, every byte where it was; `keywords`: the
    /// rule's, one of which is in it).
    pub(super) fn may_match(self, text: &str, lower: &str, keywords: &[&str]) -> bool {
        let bytes = text.as_bytes();
        match self {
            Gate::Keyword => true,
            Gate::CredentialsInUrl => memmem::find_iter(bytes, b"://").any(|i| {
                bytes[i + 3..]
                    .iter()
                    .take_while(|b| !b.is_ascii_whitespace() && **b != b'/')
                    .any(|b| *b == b'@')
            }),
            Gate::HexAfter { prefix, digits } => memmem::find_iter(bytes, prefix).any(|i| {
                let from = i + prefix.len();
                bytes
                    .get(from..from + digits)
                    .is_some_and(|w| w.iter().all(u8::is_ascii_hexdigit))
            }),
            Gate::CharsAfterWord { words, chars, of } => words.iter().any(|w| {
                memmem::find_iter(lower.as_bytes(), w.as_bytes())
                    .any(|i| chars_after_space(&text[i + w.len()..], chars, of))
            }),
            // a case-insensitive regex also reads the long s as `s` and the
            // Kelvin sign as `k`: a text with either is let through
            Gate::AlsoSays(word) => {
                text.contains(['\u{17F}', '\u{212A}'])
                    || memmem::find(lower.as_bytes(), word.as_bytes()).is_some()
            }
            Gate::PgpassFields => (0..bytes.len()).any(|i| {
                let Some(rest) = port_field_end(&bytes[i..]) else {
                    return false;
                };
                let colons = bytes[i + rest..]
                    .iter()
                    .take_while(|b| !b.is_ascii_whitespace())
                    .filter(|b| **b == b':')
                    .count();
                colons >= 2
            }),
            Gate::AssignedAfterKeyword => keywords.iter().any(|k| {
                memmem::find_iter(lower.as_bytes(), k.as_bytes())
                    .any(|i| assigns_after(&text[i + k.len()..]))
            }),
        }
    }
}

/// Whether `rest` starts with white space and then `chars` characters of
/// which `of` holds.
fn chars_after_space(rest: &str, chars: usize, of: fn(char) -> bool) -> bool {
    let after = rest.trim_start();
    after.len() < rest.len() && after.chars().take_while(|c| of(*c)).count() >= chars
}

/// `[A-Za-z0-9+/]` as a case-insensitive regex reads it: the Kelvin sign
/// and the long s fold into it.
fn is_base64(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '\u{212A}' | '\u{17F}')
}

/// `[A-Za-z0-9._~+/\-]`, case-insensitive as [`is_base64`].
fn is_token_char(c: char) -> bool {
    is_base64(c) || matches!(c, '.' | '_' | '~' | '-')
}

/// The length of a `:port:` or `:*:` at the start of `b` (1 to 5 digits).
fn port_field_end(b: &[u8]) -> Option<usize> {
    if b.first() != Some(&b':') {
        return None;
    }
    let digits = b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
    let field = if digits == 0 && b.get(1) == Some(&b'*') {
        1
    } else {
        digits
    };
    ((1..=5).contains(&field) && b.get(1 + field) == Some(&b':')).then_some(field + 2)
}

/// Whether what follows a keyword in a name reads as an assignment: more
/// of the name (`[A-Za-z0-9_-]`), a quote at most, white space, then `=`
/// or `:`.
fn assigns_after(rest: &str) -> bool {
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
    rest.trim_start().starts_with(['=', ':'])
}

/// `$token` where a word starts: at an ASCII word boundary, after a
/// control character written out (`\n`, `\t`, `\r`, as JSON and source
/// strings hold them) or after a terminal CSI sequence (`ESC[32m`, also
/// written out as `\u001b[32m`, `\x1b[32m`, `\033[32m`, `\e[32m`). The
/// boundary alone took the `n` of `\n` and the `m` of a colour code for part
/// of the word, and the token after them was kept (issue 27). The token is
/// group 1. The boundary is an assertion, not a class of the characters
/// that may come before: with a negated Unicode class there, the first
/// redaction in a process took 0.1 ms more whenever the text said "ask"
/// (the Twilio rule's keyword is `sk`); `Regex::new` alone: 0.06 ms for
/// this prefix, 0.02 ms for a bare `\b`.
macro_rules! token {
    ($token:literal) => {
        concat!(
            r"(?:(?-u:\b)|\\[ntr]|(?:\x1b|\\(?:u001[bB]|x1[bB]|033|e))\[[0-9;?]*[A-Za-z])(",
            $token,
            ")"
        )
    };
}

/// `NAME<sep>VALUE` where NAME (group 1) holds one of `$names`: the value
/// (group 2) is not a variable reference (`$X`, `${X}`, `%X%`), not a
/// placeholder in angle brackets, and at least six characters. Whether the
/// name holds a secret is decided by [`super::names::name_holds_a_secret`].
macro_rules! assignment {
    ($names:literal) => {
        concat!(
            r#"(?:^|[^A-Za-z0-9])([A-Za-z0-9_.\-]*(?i:"#,
            $names,
            r#")[A-Za-z0-9_\-]*)["']?\s*(?::=|=>|=|:)\s*"#,
            r#"["']?((?:[^\s"'`,;<>$%{}()\[\]\\]|\\.){6,})"#
        )
    };
}

pub(super) const RULES: &[Rule] = &[
    Rule {
        kind: "private-key",
        keywords: &["private key"],
        // To its END line; a block cut short (no END) to the next blank
        // line, not to the end of the text: in a summary or an injection,
        // everything after it would go too.
        gate: Gate::Keyword,
        pattern: r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[^\r\n]*(?:\r?\n[ \t]*\S[^\r\n]*)*)",
        secret: Secret::Whole,
    },
    // A PuTTY .ppk file: the lines after `Private-Lines: N` (its header and
    // public lines are not secret). `Lines` knows it line by line.
    Rule {
        kind: "putty-private-key",
        keywords: &["private-lines:"],
        // Lines of 64; the last may be short. Read flat (a heading, a
        // prompt), the word after the key may go with it.
        gate: Gate::Keyword,
        pattern: r"(?i)Private-Lines:[ \t]*[0-9]+\s+((?:[A-Za-z0-9+/=]{16,}\s+)*[A-Za-z0-9+/=]{4,})(?:\s|$)",
        secret: Secret::Group(1),
    },
    Rule {
        kind: "anthropic-key",
        keywords: &["sk-ant-"],
        gate: Gate::Keyword,
        pattern: token!(r"sk-ant-[A-Za-z0-9_\-]{20,}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "openai-key",
        keywords: &["sk-"],
        gate: Gate::Keyword,
        pattern: token!(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
        // not `sk-folding-cube-container-wrapper`, a CSS class
        secret: Secret::GroupNotWords(1),
    },
    Rule {
        kind: "aws-access-key",
        keywords: &["akia", "asia", "abia", "acca", "a3t"],
        gate: Gate::Keyword,
        pattern: token!(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?-u:\b)"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "github-token",
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        gate: Gate::Keyword,
        pattern: token!(r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "gitlab-token",
        keywords: &["glpat-", "gldt-", "glptt-", "glrt-"],
        gate: Gate::Keyword,
        pattern: token!(r"gl(?:pat|dt|ptt|rt)-[A-Za-z0-9_\-]{20,}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "slack-token",
        keywords: &["xox"],
        gate: Gate::Keyword,
        pattern: token!(r"xox[abposre]-[A-Za-z0-9\-]{10,}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "slack-webhook",
        keywords: &["hooks.slack.com"],
        gate: Gate::Keyword,
        pattern: r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+",
        secret: Secret::Whole,
    },
    Rule {
        kind: "discord-webhook",
        keywords: &["discord"],
        gate: Gate::Keyword,
        pattern: r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_\-]+",
        secret: Secret::Whole,
    },
    Rule {
        kind: "google-api-key",
        keywords: &["aiza"],
        gate: Gate::Keyword,
        pattern: token!(r"AIza[0-9A-Za-z_\-]{35}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "stripe-key",
        keywords: &["_live_", "_test_"],
        gate: Gate::Keyword,
        pattern: token!(r"(?:sk|rk|pk|whsec)_(?:live|test)_[0-9A-Za-z]{16,}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "stripe-key",
        keywords: &["whsec_"],
        gate: Gate::Keyword,
        pattern: token!(r"whsec_[0-9A-Za-z]{24,}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "huggingface-token",
        keywords: &["hf_"],
        gate: Gate::Keyword,
        pattern: token!(r"hf_[A-Za-z0-9]{30,}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "npm-token",
        keywords: &["npm_"],
        gate: Gate::Keyword,
        pattern: token!(r"npm_[A-Za-z0-9]{36}(?-u:\b)"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "pypi-token",
        keywords: &["pypi-"],
        gate: Gate::Keyword,
        pattern: token!(r"pypi-AgE[A-Za-z0-9_\-]{50,}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "sendgrid-key",
        keywords: &["sg."],
        gate: Gate::Keyword,
        pattern: token!(r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "twilio-key",
        keywords: &["sk"],
        gate: Gate::HexAfter {
            prefix: "SK",
            digits: 32,
        },
        pattern: token!(r"SK[0-9a-fA-F]{32}(?-u:\b)"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "shopify-token",
        keywords: &["shpat_", "shpss_", "shpca_", "shppa_"],
        gate: Gate::Keyword,
        pattern: token!(r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "digitalocean-token",
        keywords: &["dop_v1_", "doo_v1_", "dor_v1_"],
        gate: Gate::Keyword,
        pattern: token!(r"do[opr]_v1_[a-f0-9]{64}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "linear-key",
        keywords: &["lin_api_"],
        gate: Gate::Keyword,
        pattern: token!(r"lin_api_[A-Za-z0-9]{40}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "notion-token",
        keywords: &["secret_", "ntn_"],
        gate: Gate::Keyword,
        pattern: token!(r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "telegram-bot-token",
        keywords: &[":aa"],
        // no boundary before the digits: in a URL the token follows `bot`
        // (`https://api.telegram.org/bot<token>/getMe`)
        gate: Gate::Keyword,
        pattern: r"[0-9]{8,10}:AA[0-9A-Za-z_\-]{33}",
        secret: Secret::Whole,
    },
    // Rules below follow gitleaks' list (MIT) for services whose tokens
    // carry a fixed prefix.
    Rule {
        kind: "age-secret-key",
        keywords: &["age-secret-key-1"],
        gate: Gate::Keyword,
        pattern: r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        secret: Secret::Whole,
    },
    Rule {
        kind: "vault-token",
        keywords: &["hvs.", "hvb.", "hvr."],
        gate: Gate::Keyword,
        pattern: token!(r"hv[sbr]\.[A-Za-z0-9_\-]{24,}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "dockerhub-token",
        keywords: &["dckr_pat_", "dckr_oat_"],
        gate: Gate::Keyword,
        pattern: token!(r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{27,}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "databricks-token",
        keywords: &["dapi"],
        gate: Gate::Keyword,
        pattern: token!(r"dapi[a-f0-9]{32}(?:-[0-9])?(?-u:\b)"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "newrelic-key",
        keywords: &["nrak-", "nrjs-", "nrii-"],
        gate: Gate::Keyword,
        pattern: token!(r"NR(?:AK|JS|II)-[A-Za-z0-9]{19,32}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "planetscale-token",
        keywords: &["pscale_"],
        gate: Gate::Keyword,
        pattern: token!(r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.=]{32,64}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "grafana-token",
        keywords: &["glsa_", "glc_"],
        gate: Gate::Keyword,
        pattern: token!(r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "sendinblue-key",
        keywords: &["xkeysib-"],
        gate: Gate::Keyword,
        pattern: token!(r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "square-token",
        keywords: &["sq0csp-", "sq0atp-", "eaaa"],
        gate: Gate::Keyword,
        pattern: token!(
            r"(?:sq0csp-[0-9A-Za-z_\-]{43}|sq0atp-[0-9A-Za-z_\-]{22}|EAAA[0-9A-Za-z_\-]{60})"
        ),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "supabase-token",
        keywords: &["sbp_"],
        gate: Gate::Keyword,
        pattern: token!(r"sbp_[a-f0-9]{40}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "postman-key",
        keywords: &["pmak-"],
        gate: Gate::Keyword,
        pattern: token!(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "atlassian-token",
        keywords: &["atatt3"],
        gate: Gate::Keyword,
        pattern: token!(r"ATATT3[A-Za-z0-9_\-=]{186}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "google-oauth-secret",
        keywords: &["gocspx-"],
        gate: Gate::Keyword,
        pattern: token!(r"GOCSPX-[A-Za-z0-9_\-]{24,}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "mailgun-key",
        keywords: &["key-"],
        gate: Gate::Keyword,
        pattern: token!(r"key-[0-9a-f]{32}(?-u:\b)"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "jwt",
        keywords: &["eyj"],
        gate: Gate::Keyword,
        pattern: token!(r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
        secret: Secret::Group(1),
    },
    Rule {
        kind: "bearer-token",
        keywords: &["bearer", "token "],
        gate: Gate::CharsAfterWord {
            words: &["bearer", "token"],
            chars: 20,
            of: is_token_char,
        },
        pattern: r"(?i)(?-u:\b)(?:bearer|token)\s+([A-Za-z0-9._~+/\-]{20,}=*)",
        secret: Secret::Value(1),
    },
    Rule {
        kind: "basic-auth",
        keywords: &["basic"],
        gate: Gate::CharsAfterWord {
            words: &["basic"],
            chars: 16,
            of: is_base64,
        },
        pattern: r"(?i)(?-u:\b)basic\s+([A-Za-z0-9+/]{16,}={0,2})",
        secret: Secret::Value(1),
    },
    // scheme://user:password@host
    Rule {
        kind: "url-password",
        keywords: &["://"],
        gate: Gate::CredentialsInUrl,
        pattern: r"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:([^\s@/]{3,})@",
        secret: Secret::Value(1),
    },
    // Azure storage: AccountKey=...; SharedAccessKey=...
    Rule {
        kind: "azure-key",
        keywords: &["accountkey", "sharedaccesskey"],
        gate: Gate::Keyword,
        pattern: r"(?i)(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/=]{20,})",
        secret: Secret::Value(1),
    },
    // An Azure SAS URL or connection string: the signature is the credential
    Rule {
        kind: "azure-sas",
        keywords: &["sig="],
        gate: Gate::Keyword,
        pattern: r"(?i)[?&;]sig=([A-Za-z0-9%+/=]{16,})",
        secret: Secret::Group(1),
    },
    // Docker's config.json: "auth": "<base64 of user:password>" (also
    // inside a JSON string, quotes escaped)
    Rule {
        kind: "docker-auth",
        keywords: &["\"auth"],
        gate: Gate::Keyword,
        pattern: r#"\\?"auth\\?"\s*:\s*\\?"([A-Za-z0-9+/]{12,}={0,2})\\?""#,
        secret: Secret::Group(1),
    },
    // ~/.netrc: `machine HOST login ME password PW`, on one line or several
    // (`Lines` knows an entry over several lines too). Anywhere with a login
    // (or account, port) before the password: "the machine account password
    // rotated" is prose... `default login ...` with one space: "default" is
    // a common word, and the keyword gates compiling this regex (0.17 ms).
    Rule {
        kind: "netrc-password",
        keywords: &[
            "machine",
            "default login",
            "default account",
            "default port",
        ],
        gate: Gate::AlsoSays("password"),
        pattern: r#"(?-u:\b)(?:(?i:machine)\s+[^\s#]+\s+|(?i:default) )(?i:login|account|port)\s+[^\s#]+(?:\s+(?i:login|account|port)\s+[^\s#]+)*\s+(?i:password)\s+("[^"\n]+"|[^\s"]+)"#,
        secret: Secret::Value(1),
    },
    // ...and without one when the entry starts its line and the password's
    // line holds nothing but netrc pairs after it.
    Rule {
        kind: "netrc-password",
        keywords: &["machine"],
        gate: Gate::AlsoSays("password"),
        pattern: r#"(?m)^[ \t]*(?i:machine)[ \t]+[^\s#]+\s+(?i:password)[ \t]+("[^"\n]+"|[^\s"]+)(?:[ \t]+(?i:login|account|port)[ \t]+[^\s#]+)*[ \t]*\r?$"#,
        secret: Secret::Value(1),
    },
    // ~/.pgpass: `host:port:database:user:password` (`\:` escapes a colon),
    // as a word of its own. Gated on a colon before a digit (the port) or
    // `*`; a MAC address or a time has no five-part form with a password of
    // three characters or more.
    Rule {
        kind: "pgpass-password",
        keywords: &[
            ":0", ":1", ":2", ":3", ":4", ":5", ":6", ":7", ":8", ":9", ":*:",
        ],
        gate: Gate::PgpassFields,
        pattern: r#"(?m)(?:^|[\s"'`(=])[^\s:"'`#]+:(?:[0-9]{1,5}|\*):[^\s:"'`]+:[^\s:"'`]+:((?:[^\s:"'`\\]|\\.){3,})(?:$|[\s"'`])"#,
        secret: Secret::Value(1),
    },
    // Passwords on command lines: sshpass -p X, mysql -pX, curl -u user:X,
    // docker login --password X, docker login -u me -p X
    Rule {
        kind: "password",
        // every form names its command (`login` for docker's); `-p` alone
        // was in "re-plan" and "e2e-perf"
        keywords: &["sshpass", "mysql", "curl", "--password", "login"],
        gate: Gate::Keyword,
        pattern: r#"(?:sshpass\s+-p\s*|mysql(?:dump|admin)?\b[^\n|;&]*?\s-p|(?:docker|podman|nerdctl)\s+login\b[^\n|;&]*?\s-p(?:=|\s*)|curl\b[^\n|;&]*?\s(?:-u|--user)\s+[^\s:]+:|--password(?:=|\s+))['"]?([^\s'"]{3,})"#,
        secret: Secret::Value(1),
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
            "privatekey",
            "credential",
            "auth_key",
            "authkey",
            "signing_key",
            "signingkey",
            "_key",
        ],
        gate: Gate::AssignedAfterKeyword,
        pattern: assignment!(
            "passw(?:or)?d|pass|pwd|secret|token|api_?key|apikey|api-key|access_?key|private_?key|credentials?|auth_?key|signing_?key|_key"
        ),
        secret: Secret::Assigned,
    },
];
