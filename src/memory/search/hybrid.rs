//! Hybrid search: keyword and vector candidates fused into one ranking.
//!
//! Each side brings its own candidates: the keyword rounds of
//! [`super::keyword`] and the chunks whose vectors are nearest the query's
//! (from the memory-mapped vector file, index::vector_file, when there is a
//! current one: sign bits first over a large index, then exact cosines;
//! otherwise an exact scan of the rows).
//! Every candidate gets both scores, each normalised to 0..1, and
//! `score = w * semantic + (1 - w) * keyword` (`embeddings.vector_weight`),
//! before the source weight, recency and per-file dedup every search gets.
//!
//! The semantic score is the cosine mapped linearly from
//! [`COSINE_FLOOR`]..best-cosine onto 0..1: a static model gives unrelated
//! text a cosine well above zero, so raw cosines would lift every candidate
//! alike, and dividing by the best alone would too.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use rusqlite::{Connection, params_from_iter, types::Value as SqlValue};

use super::{HIT_COLUMNS, Hit, Matched, Mode, SearchOutcome, SearchParams};
use crate::memory::embed::Embedder;
use crate::memory::index::vector_file::{self, VectorFile};
use crate::memory::index::vectors::{self, TopK};
use crate::platform::workspace::config::SearchConfig;

/// Cosines at or below this count as no semantic match at all.
pub const COSINE_FLOOR: f32 = 0.15;

/// Whether and how to use vectors for one search.
pub enum Semantic<'a> {
    /// Keyword only, for this reason (shown in `--json`).
    Off(String),
    On {
        embedder: &'a dyn Embedder,
        /// `embeddings.vector_weight`.
        weight: f64,
        /// Vectors kept in memory between searches (the MCP server); without
        /// it each search streams them from the database.
        cache: Option<&'a VectorCache>,
    },
}

impl<'a> Semantic<'a> {
    /// On with a provider that loaded, Off with the reason it did not.
    pub fn from_loaded(
        loaded: &'a Result<Box<dyn Embedder>, String>,
        weight: f64,
        cache: Option<&'a VectorCache>,
    ) -> Semantic<'a> {
        match loaded {
            Ok(e) => Semantic::On {
                embedder: e.as_ref(),
                weight,
                cache,
            },
            Err(reason) => Semantic::Off(reason.clone()),
        }
    }
}

/// The semantic side of the searches of a long-lived process (`pms serve`,
/// `pms ui`): the provider, loaded at the first search and kept, and the
/// vectors in memory. A provider that is off or a model not yet installed
/// is looked up again next time (installing one mid-session takes effect);
/// a loaded one, or one that failed to load, is kept.
#[derive(Default)]
pub struct SemanticCache {
    embedder: std::sync::OnceLock<Result<Box<dyn Embedder>, String>>,
    vectors: VectorCache,
}

impl SemanticCache {
    pub fn new() -> SemanticCache {
        SemanticCache::default()
    }

    /// What a search uses now, with `cfg`'s provider and weight.
    pub fn semantic(
        &self,
        cfg: &crate::platform::workspace::config::EmbeddingsConfig,
        env: &crate::platform::host::env::HostEnv,
    ) -> Semantic<'_> {
        use crate::memory::embed::Plan;
        let loaded = match self.embedder.get() {
            Some(l) => l,
            None => {
                let plan = Plan::resolve(cfg, env);
                if matches!(
                    plan,
                    Plan::Off(_)
                        | Plan::Local {
                            installed: false,
                            ..
                        }
                ) {
                    return Semantic::Off(plan.load().err().unwrap_or_default());
                }
                self.embedder.get_or_init(|| plan.load())
            }
        };
        Semantic::from_loaded(loaded, cfg.vector_weight, Some(&self.vectors))
    }
}

/// Every vector of the index in one contiguous block, for a long-lived
/// process: scanning memory is several times faster than stepping through
/// SQLite rows. Reloaded when another connection changed the database
/// (`PRAGMA data_version`).
#[derive(Default)]
pub struct VectorCache {
    inner: Mutex<CacheState>,
}

#[derive(Default)]
struct CacheState {
    data_version: Option<i64>,
    ids: Vec<i64>,
    dim: usize,
    /// The stored vectors as they are in the database (i8 as bytes).
    data: Vec<u8>,
}

impl VectorCache {
    pub fn new() -> VectorCache {
        VectorCache::default()
    }

    fn nearest(
        &self,
        conn: &Connection,
        query_vec: &[f32],
        k: usize,
    ) -> rusqlite::Result<Vec<(i64, f32)>> {
        let mut st = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let version: i64 = conn.query_row("PRAGMA data_version", [], |r| r.get(0))?;
        if st.data_version != Some(version) {
            st.ids.clear();
            st.data.clear();
            st.dim = query_vec.len();
            let mut stmt =
                conn.prepare("SELECT chunk_id, vec FROM chunk_vectors ORDER BY chunk_id")?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let blob = row.get_ref(1)?.as_blob()?;
                if blob.len() == st.dim {
                    st.ids.push(row.get(0)?);
                    st.data.extend_from_slice(blob);
                }
            }
            st.data_version = Some(version);
        }
        if st.dim != query_vec.len() || st.dim == 0 {
            return Ok(Vec::new());
        }
        let query = vectors::ScanQuery::new(query_vec);
        let mut top = TopK::new(k);
        for (id, v) in st.ids.iter().zip(st.data.chunks_exact(st.dim)) {
            top.offer(*id, query.cosine(v));
        }
        Ok(top.into_sorted())
    }
}

/// Hybrid when `semantic` allows and the index holds this model's vectors;
/// otherwise exactly the keyword search, with the reason attached.
pub fn search(
    conn: &Connection,
    cfg: &SearchConfig,
    params: &SearchParams,
    semantic: &Semantic,
) -> rusqlite::Result<SearchOutcome> {
    let keyword_only = |reason: String| -> rusqlite::Result<SearchOutcome> {
        let mut out = super::keyword::search(conn, cfg, params)?;
        out.mode_reason = Some(reason);
        Ok(out)
    };
    let (embedder, weight, cache) = match semantic {
        Semantic::Off(reason) => return keyword_only(reason.clone()),
        Semantic::On {
            embedder,
            weight,
            cache,
        } => (*embedder, *weight, *cache),
    };
    if vectors::stored_model(conn).as_deref() != Some(embedder.id()) {
        return keyword_only(format!(
            "the index has no vectors from {} yet (run `pms index`)",
            embedder.id()
        ));
    }
    if params.query.trim().is_empty() {
        return super::keyword::search(conn, cfg, params);
    }
    let query_vec = match embedder.embed(std::slice::from_ref(&params.query)) {
        Ok(mut v) if !v.is_empty() => v.remove(0),
        Ok(_) => return keyword_only("the embedding provider returned no vector".into()),
        Err(e) => return keyword_only(format!("embedding the query failed: {e}")),
    };
    hybrid_fused(
        conn,
        cfg,
        params,
        &query_vec,
        fusion_for(embedder.id(), weight),
        cache,
        &super::hop::SECOND_HOP,
    )
}

/// The weights a transformer model's vectors get: 0.75 on notes, 0.2 on
/// conversation turns. Tuned with all-MiniLM-L6-v2 on the tuning half of
/// the long-memory set (`PMS_BENCH_SWEEP=persource cargo bench --bench
/// memory`): notes gain most from meaning (a paraphrase shares few words
/// with its note), while a turn's own words and its conversation's lift
/// (keyword re-scoring) stay the better guide among ten thousand turns.
pub const TRANSFORMER_FUSION: Fusion = Fusion::PerSource {
    structured: 0.75,
    transcript: 0.2,
};

/// How a provider's vectors are fused: [`TRANSFORMER_FUSION`] for a
/// transformer run in process (id `bert:`), `embeddings.vector_weight`
/// on both sources for a static model or an API (their figures were
/// measured that way; a static model's vectors hurt conversations at any
/// higher weight).
pub fn fusion_for(embedder_id: &str, weight: f64) -> Fusion {
    if embedder_id.starts_with("bert:") {
        TRANSFORMER_FUSION
    } else {
        Fusion::Weighted(weight)
    }
}

/// How keyword and vector rankings are combined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// `w * semantic + (1 - w) * keyword`, both normalised to 0..1.
    Weighted(f64),
    /// Weighted, with one weight for notes (knowledge, summaries, memory)
    /// and another for conversation turns.
    PerSource { structured: f64, transcript: f64 },
    /// Reciprocal rank fusion: `1/(k + keyword rank) + 1/(k + vector rank)`
    /// (k = 60), a rank missing on one side counting nothing there.
    ReciprocalRank,
}

/// The fused ranking for a query vector.
pub fn hybrid(
    conn: &Connection,
    cfg: &SearchConfig,
    params: &SearchParams,
    query_vec: &[f32],
    weight: f64,
    cache: Option<&VectorCache>,
) -> rusqlite::Result<SearchOutcome> {
    hybrid_fused(
        conn,
        cfg,
        params,
        query_vec,
        Fusion::Weighted(weight),
        cache,
        &super::hop::OFF,
    )
}

/// [`hybrid`] with a chosen fusion and second hop.
pub fn hybrid_fused(
    conn: &Connection,
    cfg: &SearchConfig,
    params: &SearchParams,
    query_vec: &[f32],
    fusion: Fusion,
    cache: Option<&VectorCache>,
    hop: &super::hop::Hop,
) -> rusqlite::Result<SearchOutcome> {
    let tuning = &super::keyword::TUNING;
    let pool = tuning.pool.max(params.limit * 4);
    // The vector file's scan (10-13 ms over 1.1M chunks) runs on a thread
    // of its own while SQLite answers the keyword half (6-8 ms): they share
    // nothing, and `pms search` / `pms serve` are not the hook path.
    let file = if unfiltered(params) {
        VectorFile::for_index(conn)
    } else {
        None
    };
    let (k, scanned) = std::thread::scope(|s| {
        let scan = file
            .as_deref()
            .map(|f| s.spawn(move || f.nearest(query_vec, pool)));
        let k = super::keyword::keyword_scored(conn, cfg, params, tuning);
        (k, scan.and_then(|h| h.join().ok()))
    });
    let k = k?;
    let keyword: HashMap<i64, (Hit, f64)> = k
        .scored
        .into_iter()
        .map(|(h, s)| (h.chunk_id, (h, s)))
        .collect();
    // The vector file first (memory-mapped, shared by every process), then
    // the server's copy in memory, then the rows streamed from SQLite.
    let from_file = match (file.as_deref(), scanned) {
        (Some(f), Some(found)) => Some(vector_file::with_newer(conn, f, found, query_vec, pool)?),
        _ => None,
    };
    let nearest = match (from_file, cache) {
        (Some(found), _) => found,
        (None, Some(c)) if unfiltered(params) => c.nearest(conn, query_vec, pool)?,
        _ => nearest(conn, params, query_vec, pool)?,
    };

    // Both scores for every candidate.
    let mut cosine: HashMap<i64, f32> = nearest.iter().copied().collect();
    let unscored: Vec<i64> = keyword
        .keys()
        .filter(|id| !cosine.contains_key(id))
        .copied()
        .collect();
    for (id, c) in cosines_of(conn, &unscored, query_vec)? {
        cosine.insert(id, c);
    }
    let best = cosine.values().copied().fold(COSINE_FLOOR, f32::max);
    let semantic = |id: i64| -> f64 {
        let c = cosine.get(&id).copied().unwrap_or(0.0);
        if best <= COSINE_FLOOR {
            0.0
        } else {
            f64::from(((c - COSINE_FLOOR) / (best - COSINE_FLOOR)).max(0.0))
        }
    };
    let new_ids: Vec<i64> = nearest
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !keyword.contains_key(id))
        .collect();
    let mut both: Vec<(Hit, f64, f64)> = keyword
        .into_iter()
        .map(|(id, (hit, kw))| (hit, kw, semantic(id)))
        .collect();
    for hit in hits_of(conn, &new_ids)? {
        let s = semantic(hit.chunk_id);
        both.push((hit, 0.0, s));
    }
    let mut scored: Vec<(Hit, f64)> = match fusion {
        Fusion::Weighted(w) => both
            .into_iter()
            .map(|(h, kw, sem)| (h, w * sem + (1.0 - w) * kw))
            .collect(),
        Fusion::PerSource {
            structured,
            transcript,
        } => both
            .into_iter()
            .map(|(h, kw, sem)| {
                let w = if h.source == "transcript" {
                    transcript
                } else {
                    structured
                };
                (h, w * sem + (1.0 - w) * kw)
            })
            .collect(),
        Fusion::ReciprocalRank => {
            let rank_of = |key: &dyn Fn(&(Hit, f64, f64)) -> f64| -> HashMap<i64, usize> {
                let mut v: Vec<(i64, f64)> = both
                    .iter()
                    .filter(|x| key(x) > 0.0)
                    .map(|x| (x.0.chunk_id, key(x)))
                    .collect();
                v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                v.into_iter()
                    .enumerate()
                    .map(|(i, (id, _))| (id, i))
                    .collect()
            };
            let kw_rank = rank_of(&|x| x.1);
            let sem_rank = rank_of(&|x| x.2);
            let rrf = |r: Option<&usize>| r.map_or(0.0, |r| 1.0 / (60.0 + *r as f64 + 1.0));
            let scored: Vec<(Hit, f64)> = both
                .into_iter()
                .map(|(h, _, _)| {
                    let s = rrf(kw_rank.get(&h.chunk_id)) + rrf(sem_rank.get(&h.chunk_id));
                    (h, s * 30.5)
                })
                .collect();
            scored
        }
    };
    scored.retain(|(_, s)| *s > 0.0);
    super::hop::second_hop(conn, params, &k.concepts, &mut scored, hop)?;
    let matched = if k.matched == Matched::Nothing {
        Matched::Semantic
    } else {
        k.matched
    };
    Ok(super::rank::finish(
        scored,
        matched,
        Mode::Hybrid,
        cfg,
        params,
        &k.concepts,
    ))
}

fn unfiltered(p: &SearchParams) -> bool {
    p.sources.is_empty()
        && p.project.is_none()
        && p.since.is_none()
        && p.until.is_none()
        && p.within.is_none()
}

/// The `k` chunks nearest the query among those the filters allow, with
/// their cosines.
fn nearest(
    conn: &Connection,
    p: &SearchParams,
    query_vec: &[f32],
    k: usize,
) -> rusqlite::Result<Vec<(i64, f32)>> {
    let mut args: Vec<SqlValue> = Vec::new();
    let mut filters = super::keyword::filter_clause(p, &mut args);
    if !p.sources.is_empty() {
        let list: Vec<String> = p
            .sources
            .iter()
            .map(|s| format!("'{}'", s.as_str()))
            .collect();
        filters.push_str(&format!(" AND c.source IN ({})", list.join(",")));
    }
    let sql = if filters.is_empty() {
        "SELECT chunk_id, vec FROM chunk_vectors".to_string()
    } else {
        format!(
            "SELECT v.chunk_id, v.vec FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id
             JOIN files f ON f.id = c.file_id WHERE 1 = 1{filters}"
        )
    };
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    let query = vectors::ScanQuery::new(query_vec);
    let mut top = TopK::new(k);
    while let Some(row) = rows.next()? {
        let blob = row.get_ref(1)?.as_blob()?;
        top.offer(row.get(0)?, query.cosine(blob));
    }
    Ok(top.into_sorted())
}

/// Cosines for specific chunks (keyword candidates outside the nearest set).
fn cosines_of(
    conn: &Connection,
    ids: &[i64],
    query_vec: &[f32],
) -> rusqlite::Result<Vec<(i64, f32)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT chunk_id, vec FROM chunk_vectors WHERE chunk_id IN ({})",
        vec!["?"; ids.len()].join(",")
    );
    let mut stmt = conn.prepare(&sql)?;
    let query = vectors::ScanQuery::new(query_vec);
    let rows = stmt.query_map(params_from_iter(ids), |r| {
        let blob = r.get_ref(1)?.as_blob()?;
        Ok((r.get::<_, i64>(0)?, query.cosine(blob)))
    })?;
    rows.collect()
}

/// Hits for chunks found only by their vectors.
fn hits_of(conn: &Connection, ids: &[i64]) -> rusqlite::Result<Vec<Hit>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let wanted: HashSet<i64> = ids.iter().copied().collect();
    let sql = format!(
        "SELECT {HIT_COLUMNS}
         FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN ({})",
        vec!["?"; wanted.len()].join(",")
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params_from_iter(wanted.iter()), Hit::from_row)?;
    rows.collect()
}
