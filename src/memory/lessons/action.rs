//! What a tool call does, in the terms lessons are matched on.
//!
//! Before a tool call the agent names the tool and its input: a shell
//! command (Claude Code's and Codex's `Bash`, OpenClaw's `exec`), or a file
//! about to be written (`Edit`, `MultiEdit`, `Write`, `NotebookEdit`;
//! Codex's `apply_patch`, whose patch names the files; OpenClaw's `write`,
//! `edit`, `apply_patch`). [`Action::from_tool`] reads each into an
//! [`Action`]; [`Action::terms`] gives what a lesson may share with it.
//!
//! A command is read as a shell reads it, roughly: split into simple
//! commands at `&&`, `||`, `;`, `|` and new lines; leading `VAR=value`
//! assignments and wrappers (`sudo`, `env`, `time`, `nohup`, `npx`) are
//! kept as words but the program is the word after them; quoted arguments
//! are prose (a commit message, an `echo`) and say nothing about what the
//! command does, except the script of `sh -c '...'`, which is read as a
//! command. A file's terms are its path (folders, name, extension) and,
//! unless it is prose (Markdown, text), the words and code tokens of the
//! text being written.

use std::collections::HashSet;

use serde_json::Value;

use crate::memory::words;
pub use crate::platform::agents::transcript::is_edit_tool;

/// What a tool call is about to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A shell command line.
    Command(String),
    /// A file about to be written or edited: its path and the new text.
    Edit { path: String, content: String },
}

/// The terms of an action, for matching.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionTerms {
    /// Analysed words (as `words::tokens` makes them) and code tokens
    /// (`console.log`, `--force`, `docker-compose.yml`, `.tf`, `gen/`).
    pub terms: HashSet<String>,
    /// What the action does, named: the programs a command runs and its
    /// long flags (`--force`: `forc`), or the edited file's name, extension
    /// and folders.
    pub doing: HashSet<String>,
    /// A command's subcommands (`push`, `apply`, `install`): what it does,
    /// but in words many lessons use.
    pub subcommands: HashSet<String>,
    /// The edited file's name and folders (`docker-compose.yml`, `gen/`).
    pub files: HashSet<String>,
    /// The edited file's type (`.py`, `.d.ts`; `dockerfile`, `makefile`).
    pub types: HashSet<String>,
    /// The programs a command runs (`git`, `npm`, `sudo`).
    pub programs: HashSet<String>,
    /// What the action does in the words lessons use for it: an edit
    /// edits, changes and writes files; `alembic upgrade` migrates; `-f`
    /// and `+main` force.
    pub implied: HashSet<String>,
}

/// What a subcommand or short flag means, in a lesson's words: (the
/// program, or "" for any; the word; what it means).
const IMPLIED: &[(&str, &str, &str)] = &[
    ("git", "-f", "force"),
    ("", "upgrade", "migration migrate"),
    ("", "downgrade", "migration migrate"),
    ("", "migrate", "migration"),
    ("", "i", "install"),
    ("", "ci", "install"),
    ("", "add", "install"),
    ("", "rm", "delete remove"),
    ("", "del", "delete"),
];

/// What every edit of a file does, in a lesson's words.
const EDIT_IMPLIES: &str = "edit change modify write file files";

/// Programs lessons name: a clause naming one applies only to commands
/// that run it ("kubectl apply against prod" is no rule for `terraform
/// apply` in `envs/prod`).
pub const KNOWN_PROGRAMS: &[&str] = &[
    "git",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "npx",
    "node",
    "deno",
    "pip",
    "pip3",
    "poetry",
    "uv",
    "python",
    "pytest",
    "docker",
    "docker-compose",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "terragrunt",
    "psql",
    "mysql",
    "sqlite3",
    "alembic",
    "prisma",
    "cargo",
    "rustc",
    "go",
    "make",
    "rm",
    "sudo",
    "aws",
    "gcloud",
    "az",
    "ssh",
    "scp",
    "rsync",
    "curl",
    "wget",
    "brew",
    "apt",
    "apt-get",
    "gh",
    "twine",
    "ts-node",
    "tsc",
    "eslint",
    "prettier",
    "jest",
    "vitest",
    "mvn",
    "gradle",
    "bundle",
    "rails",
    "rake",
    "flyctl",
    "fly",
    "heroku",
    "vercel",
    "ansible",
    "ansible-playbook",
    "systemctl",
    "chmod",
    "chown",
    "tofu",
    "conda",
    "pulumi",
    "mongosh",
    "redis-cli",
    "gsutil",
    "dropdb",
    "pg_dump",
];

/// The commands a prompt names ("install it with npm install", "terraform
/// apply the staging changes"): from each known program it mentions to the
/// end of its sentence, read as a command line. A prompt that says the
/// command meets the lessons about it as the command itself would. `make`
/// and `go` are English words first and start none.
pub fn commands_in(prompt: &str) -> Vec<Action> {
    let mut out = Vec::new();
    for sentence in prompt.split(['.', '\n', '?', '!', ';']) {
        let words: Vec<&str> = sentence.split_whitespace().collect();
        for (i, w) in words.iter().enumerate() {
            let bare = w
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
                .to_ascii_lowercase();
            if KNOWN_PROGRAMS.contains(&bare.as_str()) && !["make", "go"].contains(&bare.as_str()) {
                let rest: Vec<&str> = words[i..]
                    .iter()
                    .map(|w| w.trim_matches(|c: char| c == '`' || c == '"' || c == ','))
                    .collect();
                out.push(Action::Command(rest.join(" ")));
                break;
            }
        }
        if out.len() >= 3 {
            break;
        }
    }
    out
}

/// Words a lesson uses with a file type that add nothing to it ("in Go
/// code", "Python files").
pub const TYPE_WORDS: &str = "code file files source script scripts";

/// Whether `tool` runs a shell command (Claude Code's Bash, Codex's
/// `shell` / `local_shell` / `exec_command`, OpenClaw's `exec`).
pub fn is_command_tool(tool: &str) -> bool {
    matches!(
        tool,
        "Bash" | "exec" | "shell" | "local_shell" | "exec_command"
    )
}

impl Action {
    /// The action of a tool call, from the tool's name and its input as
    /// Claude Code, Codex or OpenClaw pass them; None for a tool that
    /// neither runs a command nor writes a file (Read, Grep, MCP tools).
    pub fn from_tool(tool: &str, input: &Value) -> Option<Action> {
        let s = |k: &str| input.get(k).and_then(Value::as_str);
        match tool {
            t if is_command_tool(t) => s("command")
                .or_else(|| s("cmd"))
                .map(|c| Action::Command(c.to_string())),
            "Write" | "write" => Some(Action::Edit {
                path: s("file_path").or_else(|| s("path"))?.to_string(),
                content: s("content").unwrap_or_default().to_string(),
            }),
            "Edit" | "edit" | "MultiEdit" | "NotebookEdit" => {
                let path = s("file_path")
                    .or_else(|| s("notebook_path"))
                    .or_else(|| s("path"))?
                    .to_string();
                let mut content = String::new();
                for key in ["new_string", "new_source", "newText"] {
                    if let Some(t) = s(key) {
                        content.push_str(t);
                        content.push('\n');
                    }
                }
                for e in input
                    .get("edits")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    for key in ["new_string", "newText"] {
                        if let Some(t) = e.get(key).and_then(Value::as_str) {
                            content.push_str(t);
                            content.push('\n');
                        }
                    }
                }
                Some(Action::Edit { path, content })
            }
            "apply_patch" => {
                let patch = s("command").or_else(|| s("input")).or_else(|| s("patch"))?;
                Some(patch_action(patch))
            }
            _ => None,
        }
    }

    /// What a guard is matched against: the command line, or the path.
    pub fn guard_target(&self) -> &str {
        match self {
            Action::Command(c) => c,
            Action::Edit { path, .. } => path,
        }
    }

    /// The edited file's path, when the action writes one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Action::Command(_) => None,
            Action::Edit { path, .. } => Some(path),
        }
    }

    pub fn terms(&self) -> ActionTerms {
        let mut out = ActionTerms::default();
        match self {
            Action::Command(c) => command_terms(c, &mut out, 0),
            Action::Edit { path, content } => {
                path_terms(path, &mut out);
                out.implied.extend(words::tokens(EDIT_IMPLIES));
                if !is_prose(path) {
                    // a bounded read: the start of a long file says what it is
                    let head: String = content.chars().take(8_000).collect();
                    out.terms.extend(words::tokens(&head));
                    out.terms.extend(code_tokens(&head));
                }
            }
        }
        out
    }
}

/// An `apply_patch` patch as an edit: the files it names (the first is the
/// path; the rest join the content as words) and the lines it adds.
fn patch_action(patch: &str) -> Action {
    let mut paths = Vec::new();
    let mut added = String::new();
    for line in patch.lines() {
        if let Some(p) = [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ]
        .iter()
        .find_map(|h| line.strip_prefix(h))
        {
            paths.push(p.trim().to_string());
        } else if let Some(a) = line.strip_prefix('+') {
            added.push_str(a);
            added.push('\n');
        }
    }
    let path = paths.first().cloned().unwrap_or_default();
    for other in paths.iter().skip(1) {
        added.push_str(other);
        added.push('\n');
    }
    Action::Edit {
        path,
        content: added,
    }
}

/// Files whose text is prose: what they say is not what they do.
fn is_prose(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".markdown", ".txt", ".rst", ".adoc", ".org"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// Programs that run the word after them: the program is that word.
const WRAPPERS: &[&str] = &[
    "sudo", "env", "time", "nohup", "npx", "bunx", "exec", "command", "xargs", "watch",
];

/// Programs that run another named after them (`pnpm exec prisma`, `poetry
/// run alembic`, `pnpm prisma`): that one is run too.
const RUNNERS: &[&str] = &[
    "pnpm", "yarn", "bun", "poetry", "uv", "bundle", "pipenv", "npm",
];
/// The words a runner takes before the program it runs.
const RUN_WORDS: &[&str] = &["exec", "run", "dlx", "x"];

/// A command line's terms; `depth` bounds `sh -c` inside `sh -c`.
fn command_terms(line: &str, out: &mut ActionTerms, depth: usize) {
    for simple in split_commands(line) {
        let words = shell_words(&simple);
        let mut program: Option<String> = None;
        let mut runs_next = false;
        let mut subcommand_found = false;
        let mut shell = false;
        let mut writes_next = false;
        let writer = |program: &Option<String>, words: &[Word]| {
            program.as_deref() == Some("tee")
                || (program.as_deref() == Some("sed")
                    && words
                        .iter()
                        .any(|w| matches!(w, Word::Plain(p) if p.starts_with("-i"))))
        };
        let writes_all = {
            let first = words.iter().find_map(|w| match w {
                Word::Plain(p) if !p.contains('=') && !WRAPPERS.contains(&p.as_str()) => {
                    Some(p.rsplit('/').next().unwrap_or(p).to_ascii_lowercase())
                }
                _ => None,
            });
            writer(&first, &words)
        };
        for w in &words {
            match w {
                Word::Plain(w) => {
                    let assignment = program.is_none()
                        && w.split_once('=').is_some_and(|(k, _)| {
                            !k.is_empty()
                                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        });
                    if assignment {
                        // `DATABASE_URL=$STAGING_DB alembic ...`: its words count
                        out.terms.extend(words::tokens(w));
                        continue;
                    }
                    // `> .env`, `>>.env`: the file after a redirect is written
                    let target = w.trim_start_matches(|c: char| c.is_ascii_digit());
                    if let Some(rest) = target.strip_prefix(">>").or(target.strip_prefix('>')) {
                        if rest.is_empty() {
                            writes_next = true;
                        } else {
                            path_terms(rest, out);
                        }
                        continue;
                    }
                    if std::mem::take(&mut writes_next) {
                        path_terms(w, out);
                        continue;
                    }
                    let lower = w.to_ascii_lowercase();
                    let base = lower.rsplit('/').next().unwrap_or(&lower).to_string();
                    let Some(prog) = &program else {
                        if WRAPPERS.contains(&base.as_str()) {
                            add_program(&base, out);
                            continue;
                        }
                        shell = matches!(base.as_str(), "sh" | "bash" | "zsh" | "dash");
                        runs_next = RUNNERS.contains(&base.as_str());
                        add_program(&base, out);
                        out.terms.extend(words::tokens(w));
                        program = Some(base);
                        continue;
                    };
                    if runs_next && !lower.starts_with('-') {
                        if RUN_WORDS.contains(&lower.as_str()) && prog != "npm" {
                            continue;
                        }
                        runs_next = false;
                        if prog != "npm" || lower == "exec" {
                            add_program(&base, out);
                        }
                    }
                    out.terms.extend(words::tokens(w));
                    if lower.starts_with('+') {
                        // `git push origin +main` forces
                        out.implied.insert("force".into());
                    }
                    if let Some((_, _, means)) = IMPLIED
                        .iter()
                        .find(|(p, w, _)| *w == lower && (p.is_empty() || *p == prog))
                    {
                        out.implied.extend(words::tokens(means));
                    }
                    let code = code_tokens(w);
                    // What the command does is in its program, its first
                    // word after it (the subcommand) and its flags.
                    if let Some(flag) = lower.strip_prefix("--") {
                        out.doing
                            .extend(words::tokens(flag.split('=').next().unwrap_or(flag)));
                    } else if !subcommand_found
                        && lower.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
                        && !lower.starts_with('-')
                    {
                        subcommand_found = true;
                        out.subcommands.extend(words::tokens(&lower));
                    }
                    out.terms.extend(code);
                    if looks_like_path(w) {
                        if writes_all && !lower.starts_with('-') {
                            // `sed -i ... file`, `tee file`: written
                            path_terms(w, out);
                        } else {
                            // a file a command names is one of its terms,
                            // not what it does (`git add src/config.py`
                            // edits no Python)
                            let mut names = ActionTerms::default();
                            path_terms(w, &mut names);
                            out.terms.extend(names.terms);
                        }
                    }
                }
                Word::Quoted(q) if shell && depth < 2 => command_terms(q, out, depth + 1),
                Word::Quoted(_) => {}
            }
        }
    }
}

/// A program a command runs: `pip3` and `python3.12` run pip and python.
fn add_program(base: &str, out: &mut ActionTerms) {
    let unversioned = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    for p in [base, unversioned] {
        if !p.is_empty() {
            out.programs.insert(p.to_string());
            out.doing.insert(p.to_string());
            out.terms.insert(p.to_string());
        }
    }
    // the lesson's side is analysed: `alembic` is `alemb` there
    for t in words::tokens(base) {
        out.programs.insert(t.clone());
        out.doing.insert(t.clone());
        out.terms.insert(t);
    }
}

fn looks_like_path(w: &str) -> bool {
    w.contains('/')
        || w.rsplit_once('.')
            .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty() && b.len() <= 8)
}

/// A path's terms: its file name (whole, and as words), its extension as
/// `.ext`, and its folders as `name/` (`gen/`, `migrations/`), the last few.
fn path_terms(path: &str, out: &mut ActionTerms) {
    let lower = path.to_ascii_lowercase();
    let parts: Vec<&str> = lower
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let Some(name) = parts.last() else { return };
    let mut named = vec![name.to_string()];
    let mut types = Vec::new();
    if let Some((stem, ext)) = name.rsplit_once('.') {
        types.push(format!(".{ext}"));
        if stem.is_empty() {
            named.push(format!(".{ext}")); // `.env`: the name is its type
        } else if let Some((_, ext2)) = stem.rsplit_once('.') {
            types.push(format!(".{ext2}.{ext}"));
        }
    }
    for dir in parts.iter().rev().skip(1).take(4) {
        named.push(format!("{dir}/"));
    }
    for f in named.iter().chain(&types) {
        out.doing.insert(f.clone());
        out.terms.insert(f.clone());
    }
    if ["dockerfile", "makefile", "containerfile"].contains(name) || name.starts_with("dockerfile.")
    {
        types.push(name.split('.').next().unwrap_or(name).to_string());
    }
    out.types.extend(types);
    out.files.extend(named);
    out.terms.extend(words::tokens(&lower));
    out.doing.extend(words::tokens(name));
}

/// Tokens of code a word-splitter loses: dotted names (`console.log`,
/// `fmt.Errorf`, `time.sleep`), calls and macros (`unwrap()`, `println!`),
/// long flags (`--force`, `--no-verify`), file names with an extension
/// (`docker-compose.yml`, `package-lock.json`, `.env`) and folders (`gen/`).
pub fn code_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let starts = c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.';
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len()
            && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'-' | b'.' | b'/'))
        {
            i += 1;
        }
        let raw = &text[start..i];
        let next = bytes.get(i).copied();
        let tok = raw.trim_end_matches(['.', '-']).to_ascii_lowercase();
        if tok.len() >= 2 {
            if let Some(flag) = tok.strip_prefix("--").filter(|f| f.len() >= 2) {
                out.push(format!("--{flag}"));
            } else if tok.ends_with('/') && tok.len() > 1 && !tok.starts_with('/') {
                out.push(
                    tok.rsplit('/')
                        .nth(1)
                        .map(|d| format!("{d}/"))
                        .unwrap_or(tok.clone()),
                );
            } else if tok.contains('.')
                && !tok.starts_with('.')
                && tok.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            {
                out.push(tok.rsplit('/').next().unwrap_or(&tok).to_string());
            } else if tok.starts_with('.') && tok[1..].chars().all(|c| c.is_ascii_alphanumeric()) {
                out.push(tok.clone());
            } else if !tok.starts_with('-')
                && tok.contains('-')
                && tok.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            {
                // `ts-node`, `docker-compose`, `force-push`: one name
                out.push(tok.clone());
            }
            if matches!(next, Some(b'('))
                && tok
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            {
                out.push(format!("{}()", tok.rsplit('.').next().unwrap_or(&tok)));
            } else if matches!(next, Some(b'!'))
                && tok.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                out.push(format!("{tok}!"));
            }
        }
    }
    out
}

enum Word {
    Plain(String),
    Quoted(String),
}

/// Splits a line at the shell's command separators, outside quotes.
fn split_commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(q) if c == q => {
                quote = None;
                cur.push(c);
            }
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                cur.push(c);
            }
            None if matches!(c, ';' | '|' | '&' | '\n' | '(' | ')' | '`') => {
                if !cur.trim().is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                cur.clear();
            }
            None => cur.push(c),
        }
        i += 1;
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

/// A simple command's words: plain, or quoted (their text, unquoted).
fn shell_words(command: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                quoted = true;
            }
            None if c.is_whitespace() => {
                if !cur.is_empty() || quoted {
                    out.push(if quoted {
                        Word::Quoted(std::mem::take(&mut cur))
                    } else {
                        Word::Plain(std::mem::take(&mut cur))
                    });
                }
                quoted = false;
            }
            None => cur.push(c),
        }
    }
    if !cur.is_empty() || quoted {
        out.push(if quoted {
            Word::Quoted(cur)
        } else {
            Word::Plain(cur)
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn terms(a: &Action) -> (Vec<String>, Vec<String>) {
        let t = a.terms();
        let mut terms: Vec<String> = t.terms.into_iter().collect();
        let mut targets: Vec<String> = t.doing.into_iter().chain(t.subcommands).collect();
        terms.sort();
        targets.sort();
        (terms, targets)
    }

    #[test]
    fn commands_are_read_as_a_shell_reads_them() {
        let (t, p) = terms(&Action::Command(
            "cd web && sudo npm i lodash; git commit -m 'use npm later'".into(),
        ));
        assert!(
            p.contains(&"npm".to_string()) && p.contains(&"git".to_string()),
            "{p:?}"
        );
        assert!(t.contains(&"lodash".to_string()));
        assert!(
            !t.contains(&"later".to_string()),
            "a quoted message is prose: {t:?}"
        );
        let (t, _) = terms(&Action::Command("git push --force origin main".into()));
        assert!(
            t.contains(&"--force".to_string()) && t.contains(&"main".to_string()),
            "{t:?}"
        );
        let (_, p) = terms(&Action::Command(
            "bash -c 'terraform apply -auto-approve'".into(),
        ));
        assert!(
            p.contains(&"terraform".to_string()),
            "sh -c is a command: {p:?}"
        );
        let (t, p) = terms(&Action::Command(
            "DATABASE_URL=$STAGING_DB alembic upgrade head".into(),
        ));
        assert!(
            p.contains(&"alembic".to_string()) && t.iter().any(|x| x.starts_with("stage")),
            "{t:?} {p:?}"
        );
    }

    #[test]
    fn files_are_their_path_and_the_code_being_written() {
        let a = Action::from_tool(
            "Edit",
            &json!({"file_path": "/w/svc/gen/api/orders.pb.go", "old_string": "a", "new_string": "x := fmt.Errorf(\"%w\", err)"}),
        )
        .unwrap();
        let (t, p) = terms(&a);
        assert!(
            p.contains(&"gen/".to_string()) && p.contains(&".go".to_string()),
            "{p:?}"
        );
        assert!(
            t.contains(&"fmt.errorf".to_string()) && t.contains(&"errorf()".to_string()),
            "{t:?}"
        );
        let readme = Action::Edit {
            path: "/w/README.md".into(),
            content: "Run npm install first.".into(),
        };
        let (t, _) = terms(&readme);
        assert!(
            !t.contains(&"npm".to_string()),
            "prose is not an action: {t:?}"
        );
        let (t, _) = terms(&Action::Edit {
            path: "/w/.env".into(),
            content: String::new(),
        });
        assert!(t.contains(&".env".to_string()), "{t:?}");
    }

    #[test]
    fn every_agents_tool_names_are_read() {
        assert_eq!(
            Action::from_tool("exec", &json!({"command": "ls"})),
            Some(Action::Command("ls".into()))
        );
        let patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+requests.get(url)\n*** End Patch\n";
        match Action::from_tool("apply_patch", &json!({"command": patch})).unwrap() {
            Action::Edit { path, content } => {
                assert_eq!(path, "src/app.py");
                assert!(content.contains("requests.get(url)"));
            }
            other => panic!("{other:?}"),
        }
        let multi = json!({"file_path": "/w/a.rs", "edits": [{"old_string": "a", "new_string": "b.unwrap()"}]});
        assert!(
            matches!(Action::from_tool("MultiEdit", &multi), Some(Action::Edit { content, .. }) if content.contains("unwrap"))
        );
        assert_eq!(
            Action::from_tool("Read", &json!({"file_path": "/w/a"})),
            None
        );
    }
}
