//! Lines every failure of a tool prints, whatever went wrong, and the
//! lines a runner writes to say a command, a step or a job ended badly:
//! read as lines of the error, they would make two different errors look
//! alike, and one error met bare and inside a runner look different.

use std::sync::LazyLock;

use regex_lite::Regex;

use super::error_line::words;

/// Lines every failure of a tool prints, whatever went wrong: they would
/// make two different errors look alike. Among them the lines a runner
/// writes to say which command failed (BuildKit's `=> ERROR [4/6] RUN
/// pip install …` and `failed to solve: process "…" did not complete
/// successfully`, GitHub's `Process completed with exit code 1`): the same
/// message met bare and inside `docker build` or CI is one error. Read on
/// the normalised line ([`super::normalise::normalise`]: lower case,
/// `<n>`, `<path>`, `<url>`).
pub(super) fn is_generic(line: &str) -> bool {
    GENERIC_OPENINGS.iter().any(|o| line.starts_with(o))
        || GENERIC_LINES.contains(&line)
        || GENERIC.is_match(line)
}

/// Openings of a generic line that are plain text, kept out of
/// [`GENERIC`], which every hook process that reads an error builds.
const GENERIC_OPENINGS: &[&str] = &[
    "exit code <n>",
    // Claude Code's Bash timeout, whatever the command: what hung is told
    // elsewhere, if anywhere
    "command timed out after",
    "process exited with code",
    "command exited with",
    "error: could not compile",
    "warning: build failed",
    "error: aborting due to",
    "aborting due to",
    "for more information about this error",
    "some errors have detailed explanations",
    "npm err! a complete log",
    "npm err! for a full report",
    "npm err! <path>",
    "note: test exited abnormally",
    "done. pass=<n> warn=<n> error=<n> skip=<n>",
    "error: recipe for target",
    "error: command failed with exit code",
    "error: lifecycle script",
    "the above exception was the direct cause",
    "during handling of the above exception",
    "note: run with `rust_backtrace",
    "error: test failed",
    "test result: failed",
    "error: failed to run custom build command",
    "run with --stacktrace",
    "run with --info",
    "* try:",
    "build failed with an exception",
    "failure: build failed with an exception",
    "> a failure occurred while executing",
    "> compilation error. see log",
    "compilation error. see log",
    "build failed in <n>",
    "* get more help at",
    "[error] -> [help <n>]",
    "[error] re-run maven",
    "[error] to see the full stack trace",
    "[error] for more information about the errors",
    "[error] after correcting the problems",
    "[error] <url>",
    "[info] build failure",
    "-- configuring incomplete, errors occurred",
    "ninja: build stopped",
    "the following build commands failed",
    "error command failed with exit code",
    "info visit <url>",
    "elifecycle",
    "err_pnpm_recursive_run",
    "error: subprocess-exited-with-error",
    "note: this error originates from a subprocess",
    "(see full trace by running task with --trace)",
    "evaluation failed :(",
    "[error] total time: ",
    "repeating the failure error",
    "error: earthfile line <n>:<n>: ",
];

/// Generic lines that are plain text, whole.
const GENERIC_LINES: &[&str] = &[
    // gdb stopped in a file it has no source of (libc's `memmove`)
    "<n> <path>: no such file or directory.",
    "failed to extract cache",
    "cleaning up project directory and file based variables",
    "caused by:",
    "failures:",
    "what went wrong:",
    "build failure",
    "testing failed:",
    "failed examples:",
    "rake aborted!",
    "could not find compatible versions",
    "application failed to start",
    "[error] failed tests:",
    "[error] error during tests:",
];

/// The generic lines that are patterns, anchored at the line's start.
static GENERIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"^(?:npm err! *$|warning: file does not exist *$|completed with <n> errors? and <n> warnings?:?$|traceback \(most recent call last\):?$|error: script .* exited|error: <n> errors? |found <n> errors?|<n> errors? generated|error: could not find `cargo.toml`|\* what went wrong:?$|execution failed for task '[^']*'\.?$|<n> actionable tasks?|(?:compilation failure|there are test failures)(?:[^a-z].*)?$|\[error\] *$|collect2(?:\.exe)?: error: ld returned <n> exit status$|(?:[^ ]+: )?error: linker command failed with exit code <n>|g?make(?:\[<n>\])?: \*\*\* \[|fail +<path>(?: +(?:<n>s?|\[build failed\]|\[setup failed\]))?$|\*\* (?:build|test|archive) failed \*\*|=+ short test summary info|!+ interrupted:|<n> examples?, <n> failures?|.*loggingfailureanalysisreporter : *$|(?:.*: )?application run failed$|an error occurred while loading <path>\.?$|version solving (?:has )?failed\.?$|\[error\] (?:errors|failures): *$|.*listenerexecutionfailedexception: listener failed$|standarderror: an error has occurred, this and all later migrations canceled:?(?: \(standarderror\))?$|.*for more information see above\.?$|husky - [^ ]+ hook exited with code|husky - [^ ]+ script failed|✖ [^ ]+ (?:--[^ ]+ )?failed to|✖ [^ ]+ found some errors|=> error \[[^\]]*\] |(?:error: )?(?:failed to solve: )?process ".*" did not complete successfully: exit code: <n>$|the command '.*' returned a non-zero code: <n>$|(?:error: )?command failed: |[a-z_.]*calledprocesserror: command .* returned non-zero exit status <n>\.?$|(?:error: )?command finished with error: |.*command \(<path>\) .* exited \(<n>\)$|(?:error:? )?run failed: command +exited \(<n>\)$|.*\.{4,}failed$|fatal: \[[^\]]*\]: (?:failed|unreachable)! =>$|.*: ok=<n> +changed=<n> |npm (?:err!|error) (?:code (?:<n>|elifecycle)$|errno <n>$|command failed$|command (?:sh|bash|cmd) |path <path>$|workspace |location <path>$|lifecycle script|failed at the)|npm error (?:a complete log|for a full report| *$)|script .* handling the .* event returned with error code <n>$|nox > command .* failed with exit code <n>$|nox > session .* failed\.?$|.*: exit <n> \(<n> seconds\)|.*: commands? failed$|.*: fail code <n> |<path> [a-z:_-]+: failed$|failed: +[^ #]+#[^ #]+$|tests?(?: files)?:? +<n> failed|\[error\] [a-z]+ errors? found$|(?:\[info\] )?<n> tests passed\. <n> tests failed\.|(?:\[info\] )?\*\*\* <n> (?:tests?|suites?) (?:failed|aborted) \*\*\*$|(?:\[info\] )?tests: succeeded <n>, failed <n>, canceled <n>, ignored <n>, pending <n>$|(?:\[info\] )?suites: completed <n>, aborted <n>$|(?:failed|passed)! +- +failed: +<n>|.*sbt\.testsfailedexception: tests unsuccessful$|(?:\[<path>\] +)?❌ +failure - |_* ?error collecting <path> ?_*$|importerror while importing test module '<path>'\.?$|(?:try )?re-?run(?:ning)? (?:the |this )?(?:command |it )?with (?:the )?--?[a-z])"#,
    )
    .expect("valid")
});

/// The words of a line that says only that a command, a step or a job
/// ended badly, in any runner's words (CircleCI's `Exited with code exit
/// status 1`, GitLab's `ERROR: Job failed: exit code 1`, yarn's `error
/// Command failed with exit code 1.`, Azure Pipelines' `Bash exited with
/// code '1'.`, act's `Job 'build' failed`): what failed is told
/// elsewhere.
const ENDED: &str = "exit exited exiting exitcode status code returned non zero nonzero \
    command process job script step stage task pipeline workflow completed terminated finished \
    ended unsuccessfully failure run running did didn complete successfully user container bash sh zsh \
    pwsh powershell cmd";

/// A name a runner quotes or brackets (`'build'`, `[deploy]`, `'1'`),
/// and a command it quotes in backticks, as cargo does (`process didn't
/// exit successfully: `target/debug/app --port 80` (exit status: 101)`).
/// A reason with spaces in quotes or brackets is not a name.
static RUNNER_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"'[^'\s]*'|"[^"\s]*"|\[[^\]\s]*\]|`[^`]*`"#).expect("valid"));

/// Whether a line says only how a command, a step or a job ended: its
/// words, the names it quotes or brackets and [`PLAIN`] ones aside, are
/// all [`ENDED`] words, and it says an exit, a status or a failure.
pub(super) fn says_only_how_it_ended(text: &str) -> bool {
    let words = words(&RUNNER_NAME.replace_all(text, " "));
    !words.is_empty()
        && words
            .iter()
            .all(|w| ENDED.split_whitespace().any(|e| e == w))
        && (words.iter().any(|w| {
            matches!(
                w.as_str(),
                "exit" | "exited" | "exitcode" | "status" | "failure"
            )
        }) || text.contains("failed"))
}

#[cfg(test)]
mod tests {
    use super::super::error_line::tests::texts;
    use super::super::normalise::normalise;
    use super::*;

    #[test]
    fn the_plain_generic_lines_read_as_normalised_lines_do() {
        // matched on normalised lines: an entry normalise would change
        // (a capital, a number, a path, two spaces) would never match
        for entry in GENERIC_OPENINGS.iter().chain(GENERIC_LINES) {
            assert_eq!(normalise(entry), entry.trim(), "{entry}");
            // each in one place: not the pattern's too, not under an
            // opening that already covers it
            assert!(!GENERIC.is_match(entry), "{entry}");
            let covered = |o: &&str| o != entry && entry.starts_with(o);
            assert!(!GENERIC_OPENINGS.iter().any(covered), "{entry}");
        }
        // an opening, a whole line, the pattern; a line that only opens
        // like a whole line is not one
        assert!(is_generic("error: could not compile `app` (bin \"app\")"));
        assert!(is_generic("failures:"));
        assert!(!is_generic("failures: 3 of 10 specs"));
        assert!(is_generic("npm err! code elifecycle"));
        assert!(!is_generic(
            "error[e0425]: cannot find value `x` in this scope"
        ));
    }

    #[test]
    fn a_line_that_says_only_how_a_command_ended_is_not_the_error() {
        for ended in [
            "Exited with code exit status 1",
            "exit status 2",
            "Process terminated with exit code: 137",
            "ERROR: Job failed: exit code 1",
            "error Command failed with exit code 1.",
            "Error: Process completed with exit code 2.",
            "Step failed: exited with non-zero status 127",
            // act's
            "[CI/build]   ❌  Failure - Main cabal build",
            "[CI/build] exitcode '1': failure",
            "Error: Job 'build' failed",
            // Azure Pipelines', Jenkins', Buildkite's, Drone's
            "##[error]Bash exited with code '1'.",
            "ERROR: script returned exit code 1",
            "🚨 Error: The command exited with status 1",
            "[build] exit code 1",
            "Stage 'test' failed",
            // cargo's, for `cargo run` and under a test's `Caused by:`
            "error: process didn't exit successfully: `target/debug/app --port 8080` (exit status: 101)",
            "process didn't exit successfully: `wasm-bindgen-test-runner t.wasm` (exit status: 1)",
        ] {
            assert_eq!(
                texts(&format!(
                    "error: lockfile had changes, but lockfile is frozen\n{ended}"
                )),
                ["error: lockfile had changes, but lockfile is frozen"],
                "{ended}"
            );
        }
        // a line that says more than how it ended is read, a reason in
        // quotes or brackets too
        for more in [
            "Error: step 'migrate' failed: [permission denied for schema public]",
            "ERROR: command failed with 'ENOSPC: no space left on device'",
            "error: command not found: docker",
            "Error: failed to build gem native extension.",
            "Task :app:compileKotlin FAILED",
        ] {
            assert_eq!(texts(more).len(), 1, "{more}");
        }
        assert_eq!(
            texts("error: process exited with status 1: permission denied on /var/run/docker.sock")
                .len(),
            1
        );
    }

    #[test]
    fn dbt_s_times_and_summary_are_not_the_error() {
        let run = "15:20:12  Completed with 1 error and 0 warnings:\n15:20:12  \n15:20:12  Failure in test unique_fct_orders_order_id (models/marts/_marts.yml)\n15:20:12    Got 3 results, configured to fail if != 0\n15:20:12  \n15:20:12  Done. PASS=3 WARN=0 ERROR=1 SKIP=0 TOTAL=4";
        assert_eq!(
            texts(run),
            [
                "failure in test unique_fct_orders_order_id (<path>)",
                "got <n> results, configured to fail if != <n>"
            ]
        );
    }

    #[test]
    fn gitlab_s_cache_chatter_is_not_the_error() {
        // what is left says nothing failed: the job is then known by its
        // last lines (Signature::of_failure), the poetry line among them
        let job = "Checking cache for poetry-feat-non_protected...\nWARNING: file does not exist                       \nFailed to extract cache\n$ poetry install --no-root\npyproject.toml changed significantly since poetry.lock was last generated. Run `poetry lock [--no-update]` to fix the lock file.\nCleaning up project directory and file based variables\nERROR: Job failed: exit code 1";
        assert!(texts(job).is_empty(), "{:?}", texts(job));
    }

    #[test]
    fn cargo_s_cause_is_read_when_it_says_more_than_an_exit_status() {
        let under = |cause: &str| {
            texts(&format!(
                "error: bindgen schema versions differ: 0.2.95 and 0.2.93\n\nCaused by:\n  process didn't exit successfully: {cause}\nnote: test exited abnormally; to see the full output pass --nocapture to the harness."
            ))
        };
        // how the runner ended, and cargo's note, are not the error
        assert_eq!(
            under("`wasm-bindgen-test-runner target/core-8e2b.wasm` (exit status: 1)"),
            ["error: bindgen schema versions differ: <n> and <n>"]
        );
        // a process killed (out of memory) is
        assert_eq!(
            under("`rustc --crate-name core` (signal: 9, SIGKILL: kill)").len(),
            2
        );
    }

    #[test]
    fn a_timeout_says_only_how_a_command_ended() {
        use super::super::signature::Signature;
        // Claude Code's Bash timeout alone is no error to recognise: any
        // command's would be "the same"
        assert_eq!(
            Signature::of_window("Exit code 143\nCommand timed out after 2m 0.0s", 2000),
            None
        );
        // what the command printed before it still is
        let sig = Signature::of_window(
            "Exit code 143\nerror: connection to 10.0.0.7:5432 refused, retrying\nCommand timed out after 2m 0.0s",
            2000,
        )
        .unwrap();
        assert_eq!(sig.lines.len(), 1, "{sig:?}");
        assert!(sig.lines[0].text.contains("connection to"), "{sig:?}");
    }
}
