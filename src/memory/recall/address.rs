//! Where an address points, as a place an error happened at: the host,
//! and for the machine itself the port too (see [`host_of`]).

/// The host of an address (`https://api.kim.dev/v1/orders` → `api.kim.dev`).
/// The machine itself, however written, is `localhost` with the port: it
/// runs one service per port (the API on 3000, the admin on 8000), where
/// another host's name names its service. A port left out is the
/// scheme's ([`default_port`]). None for what is no host: a user name
/// left before a redacted password (`postgres://app:`).
pub(super) fn host_of(token: &str) -> Option<String> {
    let (scheme, rest) = token.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let (host, port) = match authority.strip_prefix('[') {
        Some(bracketed) => {
            let (host, after) = bracketed.split_once(']')?;
            (host, after.strip_prefix(':'))
        }
        None => match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    match host {
        "localhost" | "127.0.0.1" | "::1" | "0.0.0.0" => {
            let port = port
                .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                .or_else(|| default_port(scheme));
            Some(match port {
                Some(port) => format!("localhost:{port}"),
                None => "localhost".into(),
            })
        }
        _ if host.contains('.') => Some(host.to_string()),
        _ => None,
    }
}

/// The port a scheme's address means when it names none.
fn default_port(scheme: &str) -> Option<&'static str> {
    Some(match scheme {
        "http" | "ws" => "80",
        "https" | "wss" => "443",
        "postgres" | "postgresql" => "5432",
        "mysql" | "mariadb" => "3306",
        "redis" => "6379",
        "rediss" => "6380",
        "mongodb" => "27017",
        "amqp" => "5672",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_itself_is_a_host_per_port() {
        for (address, host) in [
            ("https://api.kim.dev/v1/orders", Some("api.kim.dev")),
            ("https://api.kim.dev:8443/v1", Some("api.kim.dev")),
            ("http://127.0.0.1:8000/x", Some("localhost:8000")),
            ("http://[::1]:3000/x", Some("localhost:3000")),
            ("http://localhost/health", Some("localhost:80")),
            ("https://0.0.0.0/", Some("localhost:443")),
            ("redis://localhost", Some("localhost:6379")),
            ("ftp://localhost/a", Some("localhost")),
            // a redacted password leaves a user name, no host
            ("postgres://app:", None),
            ("no address", None),
        ] {
            assert_eq!(host_of(address).as_deref(), host, "{address}");
        }
    }
}
