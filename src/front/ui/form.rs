//! Query strings and form bodies (`application/x-www-form-urlencoded`):
//! decoded into fields, and values encoded into links.

/// Decoded `name=value` pairs, in order (a name may repeat: checkboxes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Form(Vec<(String, String)>);

impl Form {
    pub fn parse(encoded: &str) -> Form {
        Form(
            encoded
                .split('&')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (k, v) = p.split_once('=').unwrap_or((p, ""));
                    (decode(k), decode(v))
                })
                .collect(),
        )
    }

    /// The first value of `name`, if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of `name`, trimmed, when it is not blank.
    pub fn given(&self, name: &str) -> Option<&str> {
        self.get(name).map(str::trim).filter(|v| !v.is_empty())
    }

    /// Every value of `name`.
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// A number field; absent, blank or not a number gives None.
    pub fn number<T: std::str::FromStr>(&self, name: &str) -> Option<T> {
        self.given(name).and_then(|v| v.parse().ok())
    }

    /// The pairs without `name` (the token, once it has been turned into a cookie).
    pub fn without(&self, name: &str) -> Form {
        Form(self.0.iter().filter(|(k, _)| k != name).cloned().collect())
    }

    /// Encoded again, for a link.
    pub fn encode(&self) -> String {
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect();
        parts.join("&")
    }
}

/// Percent-decoding, `+` as a space; invalid UTF-8 becomes U+FFFD.
pub fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// Percent-encoding of everything but the unreserved characters.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A link to `path` with `params` (blank values left out), encoded.
pub fn link(path: &str, params: &[(&str, &str)]) -> String {
    let q: Vec<String> = params
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect();
    if q.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", q.join("&"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let f = Form::parse("q=a+b%26c&source=knowledge&source=transcript&x=%E4%B8%AD&bad=%zz%4");
        assert_eq!(f.get("q"), Some("a b&c"));
        assert_eq!(f.all("source"), ["knowledge", "transcript"]);
        assert_eq!(f.get("x"), Some("中"));
        assert_eq!(f.get("bad"), Some("%zz%4"));
        assert_eq!(Form::parse(&f.encode()), f);
        assert_eq!(
            link("/view", &[("uri", "cc://p/s.jsonl"), ("hl", "")]),
            "/view?uri=cc%3A%2F%2Fp%2Fs.jsonl"
        );
    }
}
