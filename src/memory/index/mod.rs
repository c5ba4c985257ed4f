//! The search index: one SQLite database with FTS5 over three sources
//! (workspace knowledge, session summaries, Claude Code transcripts).
//! `db` owns the schema, `text` the CJK-aware tokenising, `chunk` the
//! markdown chunking, `discover` which files are
//! indexed, `indexer` the incremental sync, `file_touches` the files each
//! session changed or named (and their copy the pre-tool-use hook reads), `stats` the counts others report, `vectors` the chunk embeddings for semantic recall, `vector_file`
//! the memory-mapped copy of them searches scan,
//! `health` whether the database is whole (and the note that it is not).

pub mod chunk;
pub mod db;
pub mod discover;
pub mod file_touches;
pub mod health;
pub mod indexer;
pub mod stats;
pub mod vector_file;
pub mod vectors;
