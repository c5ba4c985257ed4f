//! What pms remembers and how it finds it again: the search index
//! (`index`), ranked search (`search`), lessons and learnings (`lessons`),
//! a session's state and summary (`sessions`), embedding providers
//! (`embed`), and the words they compare (`words`).
//!
//! Inside, the arrows point from `sessions` to `lessons`, `search` and
//! `index`, from those to `embed` and `words`, never back.

pub mod embed;
pub mod index;
pub mod lessons;
pub mod search;
pub mod sessions;
pub mod words;
