//! Who may use the page. The server listens on 127.0.0.1 only, but any
//! local process and any web page the user visits can send it requests, so
//! each request must pass, in order:
//!
//! 1. Host: `127.0.0.1:<port>` or `localhost:<port>`, nothing else. A page
//!    on `evil.example` that re-points its DNS name at 127.0.0.1 (DNS
//!    rebinding) still sends `Host: evil.example`.
//! 2. Origin and `Sec-Fetch-Site`, when the browser sends them: this
//!    page's own origin, or a navigation typed by the user. Another site's
//!    script or form is refused even before the token is looked at.
//! 3. The token: the random one in the address `pms ui` printed. The first
//!    request carries it in the URL; the answer sets it as an HttpOnly,
//!    SameSite=Strict cookie (named after the port, since cookies do not
//!    tell ports apart) and redirects to the same address without it.
//! 4. For a POST, a second random value (the CSRF token) that only pages
//!    served to an authenticated client carry, in a hidden form field.

use std::io::Read;

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Host header missing or not ours.
    Host,
    /// Origin or Sec-Fetch-Site from another site.
    Origin,
    /// No valid token in the URL or the cookie.
    Token,
    /// A POST without this server's CSRF token.
    Csrf,
}

impl Refusal {
    pub fn status(self) -> u16 {
        match self {
            Refusal::Host => 421,
            Refusal::Origin | Refusal::Token | Refusal::Csrf => 403,
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Refusal::Host => "This server answers only to 127.0.0.1 and localhost on its own port.",
            Refusal::Origin => "Requests from other sites are refused.",
            Refusal::Token => {
                "This page needs the address `pms ui` printed (it carries an access token). Run `pms ui` again if it was closed."
            }
            Refusal::Csrf => {
                "This form was not served by this run of `pms ui`. Reload the page and try again."
            }
        }
    }
}

/// How a request proved it may come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// The cookie set earlier.
    Cookie,
    /// The token in the URL: set the cookie and redirect without it.
    UrlToken,
}

pub struct Guard {
    port: u16,
    token: String,
    csrf: String,
}

impl Guard {
    /// A guard with fresh random tokens for a server on `port`.
    pub fn new(port: u16) -> std::io::Result<Guard> {
        Ok(Guard {
            port,
            token: random_hex(32)?,
            csrf: random_hex(32)?,
        })
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    pub fn csrf(&self) -> &str {
        &self.csrf
    }

    pub fn cookie_name(&self) -> String {
        format!("pms_ui_{}", self.port)
    }

    /// The `Set-Cookie` value that admits this browser from now on.
    pub fn set_cookie(&self) -> String {
        format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict",
            self.cookie_name(),
            self.token
        )
    }

    pub fn check_host(&self, host: Option<&str>) -> Result<(), Refusal> {
        let host = host.ok_or(Refusal::Host)?.trim();
        let port = self.port.to_string();
        let ok = host.rsplit_once(':').is_some_and(|(name, p)| {
            p == port
                && (name.eq_ignore_ascii_case("127.0.0.1")
                    || name.eq_ignore_ascii_case("localhost"))
        });
        if ok { Ok(()) } else { Err(Refusal::Host) }
    }

    /// `origin`: the Origin header; `fetch_site`: Sec-Fetch-Site.
    pub fn check_origin(
        &self,
        origin: Option<&str>,
        fetch_site: Option<&str>,
    ) -> Result<(), Refusal> {
        if let Some(o) = origin {
            let o = o.trim();
            let ours = [
                format!("http://127.0.0.1:{}", self.port),
                format!("http://localhost:{}", self.port),
            ];
            if !ours.iter().any(|x| x.eq_ignore_ascii_case(o)) {
                return Err(Refusal::Origin);
            }
        }
        match fetch_site.map(str::trim) {
            None | Some("same-origin") | Some("none") => Ok(()),
            Some(_) => Err(Refusal::Origin),
        }
    }

    /// Admits a request by the token in its URL or its cookie.
    pub fn admit(
        &self,
        url_token: Option<&str>,
        cookie_header: Option<&str>,
    ) -> Result<Admission, Refusal> {
        if url_token.is_some_and(|t| same(t, &self.token)) {
            return Ok(Admission::UrlToken);
        }
        let name = self.cookie_name();
        let from_cookie = cookie_header
            .into_iter()
            .flat_map(|h| h.split(';'))
            .any(|c| {
                c.trim()
                    .split_once('=')
                    .is_some_and(|(k, v)| k.trim() == name && same(v.trim(), &self.token))
            });
        if from_cookie {
            Ok(Admission::Cookie)
        } else {
            Err(Refusal::Token)
        }
    }

    pub fn check_csrf(&self, value: Option<&str>) -> Result<(), Refusal> {
        if value.is_some_and(|v| same(v, &self.csrf)) {
            Ok(())
        } else {
            Err(Refusal::Csrf)
        }
    }
}

/// Equality whose time does not depend on where two equal-length strings differ.
fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `bytes` random bytes from the kernel, as hex.
fn random_hex(bytes: usize) -> std::io::Result<String> {
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_host_origin_token_and_csrf_pass() {
        let g = Guard::new(4321).unwrap();
        assert_eq!(g.token().len(), 64);
        assert_ne!(g.token(), g.csrf());
        assert!(g.check_host(Some("127.0.0.1:4321")).is_ok());
        assert!(g.check_host(Some("LOCALHOST:4321")).is_ok());
        for bad in [
            None,
            Some("127.0.0.1"),
            Some("127.0.0.1:80"),
            Some("evil.example:4321"),
            Some("127.0.0.1.evil.example:4321"),
        ] {
            assert_eq!(g.check_host(bad), Err(Refusal::Host), "{bad:?}");
        }
        assert!(g.check_origin(None, None).is_ok());
        assert!(
            g.check_origin(Some("http://localhost:4321"), Some("same-origin"))
                .is_ok()
        );
        assert!(g.check_origin(None, Some("none")).is_ok());
        for (o, s) in [
            (Some("http://evil.example"), None),
            (Some("null"), None),
            (Some("http://127.0.0.1:4322"), None),
            (None, Some("cross-site")),
            (None, Some("same-site")),
        ] {
            assert_eq!(g.check_origin(o, s), Err(Refusal::Origin), "{o:?} {s:?}");
        }
        let cookie = format!("a=b; pms_ui_4321={}", g.token());
        assert_eq!(g.admit(None, Some(&cookie)), Ok(Admission::Cookie));
        assert_eq!(g.admit(Some(g.token()), None), Ok(Admission::UrlToken));
        assert_eq!(
            g.admit(Some("x"), Some("pms_ui_4322=x")),
            Err(Refusal::Token)
        );
        let other_port = format!("pms_ui_9999={}", g.token());
        assert_eq!(g.admit(None, Some(&other_port)), Err(Refusal::Token));
        assert!(g.check_csrf(Some(g.csrf())).is_ok());
        assert_eq!(g.check_csrf(Some(g.token())), Err(Refusal::Csrf));
        assert_eq!(g.check_csrf(None), Err(Refusal::Csrf));
    }
}
