//! Link `pms` as a position-dependent executable.
//!
//! Every Claude Code prompt starts `pms hook user-prompt`, so start-up time is
//! the product's latency. A position-independent executable makes the dynamic
//! loader apply ~32,000 relative relocations at each start, copying ~600 KB of
//! `.data.rel.ro` page by page; linked without PIE those addresses are fixed at
//! link time. Measured in `benches/hooks.rs`; see docs/architecture.md
//! ("Start-up cost"). The trade: the executable image itself is not placed at a
//! random address (shared libraries, heap and stack still are).
fn main() {
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if target_os == "linux" && target_env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
