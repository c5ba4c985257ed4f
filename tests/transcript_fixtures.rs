//! Our transcript reader on a real session that Claude Code 2.1.330 wrote
//! during the project's own e2e test (recorded with PMS_RECORD_FIXTURES=1):
//! an MCP tool call, a Bash call, `--continue`, and a `/compact`.

use std::io::Cursor;

use pms::platform::agents::transcript::{ReadOptions, Role, read};

const RECORDED: &[u8] = include_bytes!("fixtures/transcripts/recorded-session.jsonl");

#[test]
fn the_recorded_session_reads_cleanly() {
    let (turns, stats) = read(&mut Cursor::new(RECORDED), 0, 0, &ReadOptions::default());
    assert_eq!(stats.malformed, 0);
    assert_eq!(
        stats.lines as usize,
        RECORDED.iter().filter(|b| **b == b'\n').count()
    );
    assert!(stats.session_id.is_some() && stats.cwd.is_some());
    let prompts: Vec<&str> = turns
        .iter()
        .filter(|t| t.role == Role::User)
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(
        prompts,
        vec![
            "What was the billing rewrite codename?",
            "Run echo hello-from-bash"
        ]
    );
    let assistant: Vec<&str> = turns
        .iter()
        .filter(|t| t.role == Role::Assistant)
        .map(|t| t.text.as_str())
        .collect();
    assert!(
        assistant
            .iter()
            .any(|t| t.starts_with("Let me check.\n[tool mcp__pms__memory_search] ")),
        "{assistant:?}"
    );
    assert!(assistant.contains(&"The codename was TANGERINE."));
    let tools: Vec<&str> = turns
        .iter()
        .filter(|t| t.role == Role::Tool)
        .map(|t| t.text.as_str())
        .collect();
    assert!(
        tools
            .iter()
            .any(|t| t.starts_with("[result mcp__pms__memory_search] ") && t.contains("TANGERINE"))
    );
    assert!(tools.contains(&"[result Bash] hello-from-bash"));
    assert_eq!(turns.iter().filter(|t| t.role == Role::Summary).count(), 1);
    // injected hook context and prompt snapshots are not conversation
    assert!(
        turns
            .iter()
            .all(|t| !t.text.contains("SessionStart hook additional context"))
    );
    // line ranges are increasing and inside the file
    for w in turns.windows(2) {
        assert!(w[0].line_start <= w[1].line_start);
    }
}

#[test]
fn reading_in_two_halves_gives_the_same_turns_as_one_read() {
    let (whole, _) = read(&mut Cursor::new(RECORDED), 0, 0, &ReadOptions::default());
    // cut after the line where the 5th turn starts, then resume there
    let cut_line = whole[4].line_start - 1;
    let offset = whole[4].byte_start;
    let (first, st) = read(
        &mut Cursor::new(&RECORDED[..offset as usize]),
        0,
        0,
        &ReadOptions::default(),
    );
    assert_eq!(st.lines, cut_line);
    let mut rest = Cursor::new(RECORDED);
    rest.set_position(offset);
    let (second, _) = read(&mut rest, offset, cut_line, &ReadOptions::default());
    let joined: Vec<_> = first
        .into_iter()
        .chain(second)
        .map(|t| (t.line_start, t.text))
        .collect();
    let expected: Vec<_> = whole.into_iter().map(|t| (t.line_start, t.text)).collect();
    assert_eq!(joined, expected);
}
