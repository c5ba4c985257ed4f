//! What pms remembers and how it finds it again: the search index
//! (`index`), ranked search (`search`), lessons and learnings (`lessons`),
//! a session's state and summary (`sessions`), what past sessions say at
//! the moment it is needed (`recall`), embedding providers
//! (`embed`), and the words they compare (`words`).
//!
//! Inside, the arrows point from `sessions` to `lessons`, `search` and
//! `index`, from those to `embed` and `words`, never back; `recall` reads
//! the index, the summaries' text and `words`.

pub mod embed;
pub mod index;
pub mod lessons;
pub mod recall;
pub mod search;
pub mod sessions;
pub mod words;
