//! The machine pms runs on: where things are (`env`), writing files so that
//! a crash or a full disk loses nothing (`durable`), and the error that names
//! the file an operation failed on (`error`).

pub mod durable;
pub mod env;
pub mod error;
