//! The README's first two commands are the contract with a new user: the
//! first builds and runs the guided setup, the second runs the tests, and CI
//! runs exactly that test command.

fn readme_commands() -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("README starts with a sh code block");
    block
        .lines()
        .map(|l| l.split('#').next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn first_command_builds_and_runs_the_guided_setup() {
    let cmds = readme_commands();
    assert!(
        cmds[0].contains("cargo install") && cmds[0].contains("pms init"),
        "{cmds:?}"
    );
}

#[test]
fn ci_runs_the_readme_test_command() {
    let cmds = readme_commands();
    let test_cmd = &cmds[1];
    assert!(test_cmd.starts_with("cargo test"), "{test_cmd}");
    let ci = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == test_cmd),
        ".ci/run does not run the README's test command {test_cmd:?}"
    );
}
