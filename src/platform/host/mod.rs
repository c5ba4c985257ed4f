//! The machine pms runs on: where things are (`env`), writing files so that
//! a crash or a full disk loses nothing (`durable`), the error that names
//! the file an operation failed on (`error`), reading lines with a bound
//! on memory (`lines`), and long text cut to its ends (`text`).

pub mod durable;
pub mod env;
pub mod error;
pub mod lines;
pub mod project;
pub mod text;
