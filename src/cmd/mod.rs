//! One file per subcommand. Each is thin: it turns flags into calls to the
//! library modules and prints the result for a person (or as JSON).

pub mod hook;
pub mod init;
pub mod serve;
pub mod uninstall;
