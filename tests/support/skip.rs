//! What happens when a tool some tests need (npm, pip) is not on this
//! machine. Shared by tests/support and the benchmarks that include it.

/// A tool some tests need is not on this machine: under PMS_E2E_REQUIRED=1
/// (CI) that fails the test; elsewhere the tests are skipped with a message
/// nobody can miss.
pub fn missing_tool(msg: &str, hint: &str) {
    if std::env::var("PMS_E2E_REQUIRED").is_ok_and(|v| v == "1") {
        panic!("{msg} (PMS_E2E_REQUIRED=1)");
    }
    let bar = "!".repeat(64);
    eprintln!("\n{bar}\n!! SKIPPED: {msg}.\n!! {hint}\n{bar}\n");
}
