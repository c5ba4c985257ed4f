//! The front ends: the command line (`cli` and one file per command in
//! `cmd`), the MCP server (`mcp`) and the local page (`ui`). Each parses what
//! it is given into typed values, calls one use case below it and renders
//! the answer; nothing below imports this module.

pub mod cli;
pub mod cmd;
pub mod mcp;
pub mod ui;
