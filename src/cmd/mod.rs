//! One file per subcommand. Each is thin: it turns flags into calls to the
//! library modules and prints the result for a person (or as JSON).

pub mod completions;
pub mod doctor;
pub mod embeddings;
pub mod get;
pub mod hook;
pub mod index;
pub mod init;
pub mod lessons;
pub mod search;
pub mod serve;
pub mod status;
pub mod sync;
pub mod ui;
pub mod uninstall;
pub mod upgrade;
pub mod verify;
