//! How a long step reports its progress without knowing who watches: the
//! indexing pass (files and bytes), a model download (bytes), the
//! embedding pass (chunks) and an import's two passes (bytes). `pms index` and `pms embeddings` draw indicatif
//! bars; tests, benchmarks, the hooks' background runs and the MCP server
//! pass [`Quiet`].

/// What is being counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Files to read, and their bytes; `advance` counts bytes, one call per file.
    Indexing { files: u64, bytes: u64 },
    /// A model's files, in bytes.
    Downloading { bytes: u64 },
    /// Chunks to embed.
    Embedding { chunks: u64 },
    /// An import checking the whole of its input before it writes anything
    /// (`advance` counts bytes read).
    Checking { bytes: u64 },
    /// An import reading its input into the workspace (bytes).
    Importing { bytes: u64 },
}

pub trait Progress {
    fn start(&self, _step: Step) {}
    fn advance(&self, _done: u64) {}
    fn finish(&self) {}
    /// Something a person watching should know ("the index was unusable;
    /// rebuilding it"). Silent by default.
    fn note(&self, _message: &str) {}
}

/// No progress display.
pub struct Quiet;
impl Progress for Quiet {}
