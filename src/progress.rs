//! How a long step that counts up to a known total (a model download in
//! bytes, an embedding pass in chunks) reports its progress without knowing
//! who watches: `pms index` and `pms embeddings` draw an indicatif bar; tests,
//! benchmarks and background runs pass [`Quiet`].

pub trait Progress {
    fn start(&self, _total: u64) {}
    fn advance(&self, _done: u64) {}
    fn finish(&self) {}
}

/// No progress display.
pub struct Quiet;
impl Progress for Quiet {}
