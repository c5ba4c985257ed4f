//! Chunk vectors, stored next to the chunks in `index.db`.
//!
//! Each vector is the chunk's unit-length embedding quantised to one signed
//! byte per dimension (`round(x * 127)`), so a 256-dimension vector costs 256
//! bytes and a cosine is an integer-weighted dot product. Quantising costs
//! less than 0.01 in cosine, far below the gap between a relevant and an
//! irrelevant chunk.
//!
//! Vectors are computed after the chunks are written, for every chunk that
//! has none, so the same pass serves a first index, an incremental run and a
//! provider switched on later. `meta.embedding_model` names the model the
//! vectors came from; a different model clears them all first, because
//! vectors from two models cannot be compared.

use std::time::Instant;

use rusqlite::{Connection, params};

use crate::memory::embed::{EmbedError, Embedder};
use crate::platform::progress::{Progress, Step};

/// Chunks embedded per provider call and per transaction.
const BATCH: usize = 256;

/// Characters of a chunk passed to the model. Static models read at most
/// 512 tokens anyway; cutting first saves tokenising text that is dropped.
const MAX_CHARS: usize = 4_000;

#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    #[error("index database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Embed(#[from] EmbedError),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct EmbedReport {
    pub chunks: usize,
    pub cleared: usize,
    pub elapsed_ms: u128,
}

pub fn quantise(v: &[f32]) -> Vec<u8> {
    v.iter()
        .map(|x| ((x * 127.0).round().clamp(-127.0, 127.0) as i8) as u8)
        .collect()
}

/// A unit query vector made ready to score many stored (quantised, unit)
/// vectors: as 16-bit integers, so that each dot product is an integer sum
/// the compiler vectorises. A sum of f32 must keep its order and runs one
/// lane at a time: over 1.1M vectors in memory the scan took 60 ms that
/// way (`PMS_BENCH_LARGE_DB=... cargo bench --bench semantic`).
pub struct ScanQuery {
    q: Vec<i16>,
    /// Integer dot product -> cosine.
    scale: f32,
}

impl ScanQuery {
    pub fn new(query: &[f32]) -> ScanQuery {
        let max = query.iter().fold(0f32, |m, x| m.max(x.abs()));
        let l1: f32 = query.iter().map(|x| x.abs()).sum();
        if max == 0.0 || !l1.is_finite() {
            return ScanQuery {
                q: vec![0; query.len()],
                scale: 0.0,
            };
        }
        // As fine as i16 allows, and no i32 overflow: every |q_i| rounds
        // up by at most 0.5, and a stored byte is at most 128 in size (-128
        // from a foreign or damaged blob; pms writes -127..=127).
        let room = f32::from(i16::MAX) / max;
        let no_overflow = (i32::MAX as f32 / 128.0 - query.len() as f32) / l1;
        let s = room.min(no_overflow).max(0.0);
        ScanQuery {
            q: query.iter().map(|x| (x * s).round() as i16).collect(),
            scale: if s > 0.0 { 1.0 / (s * 127.0) } else { 0.0 },
        }
    }

    /// The cosine with a stored vector (0 for one of another length).
    #[inline]
    pub fn cosine(&self, stored: &[u8]) -> f32 {
        if self.q.len() != stored.len() {
            return 0.0;
        }
        let dot: i32 = self
            .q
            .iter()
            .zip(stored)
            .map(|(q, s)| i32::from(*q) * i32::from(*s as i8))
            .sum();
        dot as f32 * self.scale
    }
}

/// The best `k` (id, cosine) pairs seen.
pub(crate) struct TopK {
    k: usize,
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(i32, i64)>>,
}

impl TopK {
    pub(crate) fn new(k: usize) -> TopK {
        TopK {
            k,
            heap: std::collections::BinaryHeap::with_capacity(k + 1),
        }
    }

    pub(crate) fn offer(&mut self, id: i64, cosine: f32) {
        use std::cmp::Reverse;
        // cosines as ordered integers: 1e-6 resolution is plenty
        let key = (cosine * 1_000_000.0) as i32;
        if self.heap.len() < self.k {
            self.heap.push(Reverse((key, id)));
        } else if self
            .heap
            .peek()
            .is_some_and(|Reverse((worst, _))| key > *worst)
        {
            self.heap.pop();
            self.heap.push(Reverse((key, id)));
        }
    }

    pub(crate) fn into_sorted(self) -> Vec<(i64, f32)> {
        let mut out: Vec<(i64, f32)> = self
            .heap
            .into_iter()
            .map(|std::cmp::Reverse((key, id))| (id, key as f32 / 1_000_000.0))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// The model the stored vectors came from.
pub fn stored_model(conn: &Connection) -> Option<String> {
    super::db::get_meta(conn, "embedding_model")
}

pub fn count(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT count(*) FROM chunk_vectors", [], |r| r.get(0))
}

pub fn missing(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.chunk_id = c.id)",
        [],
        |r| r.get(0),
    )
}

/// Removes every vector (when the provider is switched off or changed).
pub fn clear(conn: &Connection) -> rusqlite::Result<usize> {
    let n = conn.execute("DELETE FROM chunk_vectors", [])?;
    conn.execute("DELETE FROM meta WHERE key = 'embedding_model'", [])?;
    Ok(n)
}

/// Embeds every chunk that has no vector yet.
pub fn embed_missing(
    conn: &mut Connection,
    embedder: &dyn Embedder,
    progress: &dyn Progress,
) -> Result<EmbedReport, VectorError> {
    let started = Instant::now();
    let mut report = EmbedReport::default();
    if stored_model(conn).as_deref() != Some(embedder.id()) {
        report.cleared = clear(conn)?;
        super::db::set_meta(conn, "embedding_model", embedder.id())?;
    }
    progress.start(Step::Embedding {
        chunks: missing(conn)? as u64,
    });
    let mut after = 0i64;
    loop {
        let batch: Vec<(i64, String)> = {
            let mut stmt = conn.prepare_cached(
                "SELECT c.id, coalesce(c.heading || char(10), '') || c.text FROM chunks c
                 WHERE c.id > ?1 AND NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.chunk_id = c.id)
                 ORDER BY c.id LIMIT ?2",
            )?;
            stmt.query_map(params![after, BATCH as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        let Some(last) = batch.last() else { break };
        after = last.0;
        let texts: Vec<String> = batch
            .iter()
            .map(|(_, t)| match t.char_indices().nth(MAX_CHARS) {
                Some((cut, _)) => t[..cut].to_string(),
                None => t.clone(),
            })
            .collect();
        let vectors = embedder.embed(&texts)?;
        let tx = conn.transaction()?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT OR REPLACE INTO chunk_vectors(chunk_id, vec) VALUES (?1, ?2)",
            )?;
            for ((id, _), v) in batch.iter().zip(&vectors) {
                insert.execute(params![id, quantise(v)])?;
            }
        }
        tx.commit()?;
        report.chunks += batch.len();
        progress.advance(batch.len() as u64);
    }
    progress.finish();
    report.elapsed_ms = started.elapsed().as_millis();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantised_cosine_is_close_to_the_exact_one() {
        let mut a: Vec<f32> = (0..256)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        let mut b: Vec<f32> = (0..256)
            .map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0)
            .collect();
        crate::memory::embed::normalise(&mut a);
        crate::memory::embed::normalise(&mut b);
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let q = ScanQuery::new(&a);
        let approx = q.cosine(&quantise(&b));
        assert!((exact - approx).abs() < 0.01, "{exact} vs {approx}");
        assert!((q.cosine(&quantise(&a)) - 1.0).abs() < 0.01);
        assert_eq!(
            q.cosine(&quantise(&b[..10])),
            0.0,
            "length mismatch scores 0"
        );
    }

    #[test]
    fn wide_and_degenerate_queries_neither_overflow_nor_divide_by_zero() {
        // 4,096 equal components: the l1 norm, not the largest component,
        // bounds the scale
        let mut wide = vec![1.0f32; 4096];
        crate::memory::embed::normalise(&mut wide);
        let q = ScanQuery::new(&wide);
        let c = q.cosine(&quantise(&wide));
        assert!((c - 1.0).abs() < 0.01, "{c}");
        let negated: Vec<f32> = wide.iter().map(|x| -x).collect();
        assert!((q.cosine(&quantise(&negated)) + 1.0).abs() < 0.01);
        assert_eq!(ScanQuery::new(&[0.0; 8]).cosine(&[1; 8]), 0.0);
    }
}
