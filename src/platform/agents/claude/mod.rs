//! Claude Code's own files: settings.json hooks (whose merge Codex's
//! hooks.json and OpenClaw's hook table reuse), the MCP registration in
//! `~/.claude.json`, auto-memory, and the project folder names of its
//! transcripts. The hook stdin/stdout contract it shares with Codex is
//! `super::hook_io`; its transcripts are read by `super::transcript`.
//! The contract these follow is in ../shared/docs/claude-code-integration.md
//! (summarised in docs/architecture.md).

pub mod auto_memory;
pub mod mcp_registration;
pub mod settings;

/// The folder name Claude Code gives a project under `~/.claude/projects/`:
/// every UTF-16 unit that is not an ASCII letter or digit becomes `-`, and a
/// name over 200 units is cut and suffixed with a hash of the whole path.
pub fn project_folder_name(cwd: &str) -> String {
    let units: Vec<u16> = cwd.encode_utf16().collect();
    let enc: String = units
        .iter()
        .map(|&u| {
            if u < 128 && (u as u8).is_ascii_alphanumeric() {
                u as u8 as char
            } else {
                '-'
            }
        })
        .collect();
    if enc.len() <= 200 {
        return enc;
    }
    let mut h: i32 = 0;
    for &u in &units {
        h = h.wrapping_mul(31).wrapping_add(u as i32);
    }
    format!("{}-{}", &enc[..200], base36(h.unsigned_abs()))
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).expect("ascii digits")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_match_claude_code() {
        assert_eq!(
            project_folder_name("/tmp/h-int/proj/sub"),
            "-tmp-h-int-proj-sub"
        );
        assert_eq!(project_folder_name("/x/My.Proj_v2"), "-x-My-Proj-v2");
        assert_eq!(project_folder_name("/x/with space"), "-x-with-space");
        assert_eq!(project_folder_name("/x/ünï-cødé"), "-x--n--c-d-");
        assert_eq!(project_folder_name("/x/😀"), "-x---");
        let long = format!("/{}", "a".repeat(250));
        let enc = project_folder_name(&long);
        assert!(enc.starts_with(&format!("-{}", "a".repeat(199))));
        assert!(enc.len() > 201);
    }
}
