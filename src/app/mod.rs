//! The use cases: what each hook event does (`hooks`), setting up and
//! taking out (`install`), upgrading (`upgrade`), checking and repairing
//! (`verify`), keeping derived data in step (`upkeep`), saving a note
//! (`notes`) and bringing another tool's memory in (`import`). They take an opened [`crate::platform::workspace::context::Context`]
//! and work through `memory` and `platform`.

pub mod hooks;
pub mod import;
pub mod install;
pub mod notes;
pub mod upgrade;
pub mod upkeep;
pub mod verify;
