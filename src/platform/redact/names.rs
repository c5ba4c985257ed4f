//! Telling a secret from what only looks like one: an assignment's name
//! that holds no secret (`max_tokens`, `secretName`), a value that names a
//! variable, a token that reads as words.

/// A value that names an environment variable (`api_key_env =
/// "OPENAI_API_KEY"`, `token: GITHUB_TOKEN`): upper case, digits and at least
/// one underscore. It says where a secret is, not what it is; redacting it
/// hid pms's own `embeddings.api_key_env` setting in notes and answers.
pub(super) fn names_a_variable(value: &str) -> bool {
    value.starts_with(|c: char| c.is_ascii_uppercase())
        && value.contains('_')
        && value
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Lower-case words joined by `-` or `_`, nothing else: a CSS class or a
/// slug, not a random token.
pub(super) fn reads_as_words(token: &str) -> bool {
    token
        .split(['-', '_'])
        .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()))
}

/// Names whose `key` is a database's, a cache's or a queue's, not a
/// credential (`partition_key = tenant_id`, `primary_key: order_number`).
const KEYS_THAT_ARE_NOT_CREDENTIALS: &[&str] = &[
    "cache",
    "composite",
    "dedup",
    "dedupe",
    "foreign",
    "group",
    "hash",
    "idempotency",
    "index",
    "join",
    "lookup",
    "map",
    "message",
    "object",
    "partition",
    "primary",
    "public",
    "range",
    "routing",
    "row",
    "shard",
    "sort",
    "unique",
];

/// Last words that make a name about a secret, not the secret itself:
/// `secretName`, `token_endpoint`, `password_file`, `api_key_env`,
/// `credential.helper`, `token_type`, `password_min_length`.
const ABOUT_A_SECRET: &[&str] = &[
    "arn", "command", "count", "dir", "endpoint", "env", "expiry", "field", "file", "format",
    "header", "helper", "id", "length", "lifetime", "limit", "location", "mode", "name", "path",
    "policy", "prefix", "provider", "ref", "size", "source", "timeout", "ttl", "type", "uri",
    "url", "var", "version",
];

/// Words that end in "pass" and are not one.
const NOT_PASS: &[&str] = &[
    "bypass",
    "compass",
    "overpass",
    "surpass",
    "trespass",
    "underpass",
];

/// Whether an assignment's name says its value is a secret. The rule's
/// keywords are cheap substrings (`pass`, `token`, `_key`); this reads the
/// name's words (split at `_`, `-`, `.` and camel humps): `bypass_cache`,
/// `max_tokens`, `tokenizer` and `partition_key` hold none (issue 27), nor
/// does a name whose last word says what it is about the secret
/// ([`ABOUT_A_SECRET`]), nor the shell's `PWD`.
pub(super) fn name_holds_a_secret(name: &str) -> bool {
    if name.eq_ignore_ascii_case("pwd") || name.eq_ignore_ascii_case("oldpwd") {
        return false; // the working directory
    }
    let words = name_words(name);
    let secret_word = |i: usize| {
        let w = words[i].as_str();
        let before = i.checked_sub(1).map(|j| words[j].as_str());
        w.contains("passw")
            || w.contains("passphrase")
            || w.contains("passcode")
            || (w.ends_with("pass") && !NOT_PASS.contains(&w))
            || w.ends_with("pwd")
            || w.contains("secret")
            || w.contains("credential")
            || w.ends_with("token")
            || ((w == "key" || w == "keys")
                && !before.is_some_and(|b| KEYS_THAT_ARE_NOT_CREDENTIALS.contains(&b)))
            || (w.len() > 3 && w.ends_with("key")) // apikey, accesskey, privatekey
    };
    let Some(last_secret) = (0..words.len()).rev().find(|&i| secret_word(i)) else {
        return false;
    };
    last_secret + 1 == words.len()
        || !words
            .last()
            .is_some_and(|w| ABOUT_A_SECRET.contains(&w.as_str()))
}

/// A name's words, lower case: `DATABASE_PASSWORD` → database, password;
/// `secretName` → secret, name; `X-API-Key` → x, api, key.
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut after_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            after_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && after_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.push(c.to_ascii_lowercase());
        after_lower = !c.is_ascii_uppercase();
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_as_words() {
        assert_eq!(name_words("DATABASE_PASSWORD"), ["database", "password"]);
        assert_eq!(name_words("secretName"), ["secret", "name"]);
        assert_eq!(name_words("X-API-Key"), ["x", "api", "key"]);
        assert_eq!(
            name_words("spring.datasource.password"),
            ["spring", "datasource", "password"]
        );
        assert_eq!(name_words("PGPASSWORD"), ["pgpassword"]);
    }

    #[test]
    fn a_name_holds_a_secret_by_its_words() {
        for name in [
            "password",
            "DATABASE_PASSWORD",
            "PGPASSWORD",
            "db_pass",
            "MYSQL_PWD",
            "client_secret",
            "aws_secret_access_key",
            "SECRET_KEY",
            "secret_key_base",
            "DD_API_KEY",
            "X-API-Key",
            "apiKey",
            "_authToken",
            "access_token",
            "GITHUB_TOKENS_SECRET",
            "credentials",
            "STRIPE_KEY",
            "encryption_keys",
        ] {
            assert!(name_holds_a_secret(name), "{name}");
        }
        for name in [
            "max_tokens",
            "tokenizer",
            "partition_key",
            "primary_key",
            "public_key",
            "bypass_cache",
            "secretName",
            "token_endpoint",
            "api_key_env",
            "password_file",
            "credential.helper",
            "passwordMinLength",
            "PWD",
            "OLDPWD",
        ] {
            assert!(!name_holds_a_secret(name), "{name}");
        }
    }

    #[test]
    fn words_are_told_from_tokens() {
        assert!(reads_as_words("sk-folding-cube-container-wrapper"));
        assert!(!reads_as_words("sk-proj-5g6ncBvLqZKnbxg2iqYxZ"));
        assert!(!reads_as_words("sk-abcdefghijklmnopqrstuvwxyz0123"));
    }
}
