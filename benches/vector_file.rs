//! Hybrid search latency over a large index, with and without the vector
//! file (index::vector_file), printed as p50 / p95.
//!
//! The index is built here, straight into the real schema: PMS_BENCH_CHUNKS
//! transcript chunks (default 1,100,000) of 30 words from a Zipf vocabulary
//! of 50,000 words, in 5,000 conversations, each with a PMS_BENCH_DIM
//! vector (default 384, all-MiniLM-L6-v2's) drawn around one of 2,000
//! random directions (a transformer's vectors cluster by topic; uniform
//! random ones would make every neighbour equally far). No model embeds
//! 1.1M chunks here (all-MiniLM-L6-v2 does about 35 a second on this
//! machine): the query vectors are drawn the same way, and what embedding
//! a query costs is measured by `cargo bench --bench memory` and added in
//! the printout.
//!
//! Run: `cargo bench --bench vector_file`. PMS_BENCH_DIR=<dir> keeps the
//! index between runs (about 1.4 GB at the defaults); PMS_BENCH_STREAMED=1
//! adds hybrid search with the vectors streamed from SQLite, as before the
//! file (about a minute more).

use std::path::PathBuf;
use std::time::Instant;

use pms::memory::index::vector_file::{self, Scan, VectorFile};
use pms::memory::index::{db, vectors};
use pms::memory::search::hybrid;
use pms::memory::search::{Request, hop, keyword};
use pms::platform::workspace::config::Config;

const VOCAB: usize = 50_000;
const CENTRES: usize = 2_000;
const FILES: usize = 5_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn gauss(&mut self) -> f32 {
        let (u, v) = (self.unit().max(1e-12), self.unit());
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    }
    /// A word index, Zipf-like (rank r with weight 1/r).
    fn word(&mut self) -> usize {
        let x = self.unit();
        ((VOCAB as f64).powf(x) as usize)
            .saturating_sub(1)
            .min(VOCAB - 1)
    }
}

fn word(i: usize) -> String {
    // pronounceable, distinct, no digits (digits are not concepts alike)
    const SYL: [&str; 20] = [
        "ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze", "ba", "de", "fi", "go", "hu",
        "ja", "ke", "li", "mo", "ny",
    ];
    let mut s = String::new();
    let mut n = i + 400;
    while n > 0 {
        s.push_str(SYL[n % 20]);
        n /= 20;
    }
    s
}

fn unit_vec(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    v.iter_mut().for_each(|x| *x /= n);
}

fn around(rng: &mut Rng, centre: &[f32], spread: f32) -> Vec<f32> {
    let mut v: Vec<f32> = centre
        .iter()
        .map(|c| c + spread * rng.gauss() / (centre.len() as f32).sqrt())
        .collect();
    unit_vec(&mut v);
    v
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let chunks: usize = std::env::var("PMS_BENCH_CHUNKS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_100_000);
    let dim: usize = std::env::var("PMS_BENCH_DIM")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(384);
    let tmp = tempfile::tempdir().unwrap();
    let base = std::env::var_os("PMS_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&base).unwrap();
    let db_path = base.join(format!("vectors-{chunks}-{dim}.db"));
    let mut rng = Rng(7);
    let centres: Vec<Vec<f32>> = (0..CENTRES)
        .map(|_| {
            let mut c: Vec<f32> = (0..dim).map(|_| rng.gauss()).collect();
            unit_vec(&mut c);
            c
        })
        .collect();
    let model = format!("bench:synthetic:{dim}");
    let mut conn = db::open_rw(&db_path).unwrap();
    let have: i64 = conn
        .query_row("SELECT count(*) FROM chunk_vectors", [], |r| r.get(0))
        .unwrap();
    if have as usize != chunks {
        let t = Instant::now();
        build(&mut conn, &mut rng, &centres, chunks, &model);
        println!(
            "built {chunks} chunks with {dim}-dimension vectors in {:.0} s",
            t.elapsed().as_secs_f64()
        );
    }
    // as the indexer leaves an index: its common and frequent terms listed
    // (on a reused index this finds the table current and does nothing, so
    // its time is printed only for an index built in this run)
    let t = Instant::now();
    pms::memory::index::indexer::refresh_frequent_terms(&conn).unwrap();
    if have as usize != chunks {
        println!(
            "frequent terms listed in {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }
    let t = Instant::now();
    let refresh = vector_file::refresh(&conn, &db_path).unwrap();
    let file = vector_file::path_for(&db_path);
    println!(
        "vector file: {refresh:?} in {:.1} s, {:.1} MB ({} bytes per chunk); index.db {:.1} MB",
        t.elapsed().as_secs_f64(),
        std::fs::metadata(&file).unwrap().len() as f64 / 1e6,
        std::fs::metadata(&file).unwrap().len() / chunks as u64,
        std::fs::metadata(&db_path).unwrap().len() as f64 / 1e6,
    );

    // queries: three words each (mid-frequency ranks), a vector near a
    // centre the index uses
    let mut rng = Rng(99);
    let queries: Vec<(String, Vec<f32>)> = (0..100)
        .map(|_| {
            let words: Vec<String> = (0..3)
                .map(|_| word(200 + (rng.next() as usize % 5_000)))
                .collect();
            let c = &centres[rng.next() as usize % CENTRES];
            (words.join(" "), around(&mut rng, c, 0.8))
        })
        .collect();
    let cfg = Config::default();
    let fusion = hybrid::TRANSFORMER_FUSION;

    // how much of the exact nearest the sign-bit prefilter keeps
    let vf = VectorFile::for_index(&conn).expect("the vector file just written");
    let (mut kept150, mut kept10) = (0.0, 0.0);
    let (mut exact_ms, mut signs_ms) = (Vec::new(), Vec::new());
    for (_, qv) in queries.iter().take(30) {
        let t = Instant::now();
        let exact = vf.nearest_by(qv, 150, Scan::Exact);
        exact_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let approx = vf.nearest_by(qv, 150, Scan::SignsFirst);
        signs_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let got: std::collections::HashSet<i64> = approx.iter().map(|(id, _)| *id).collect();
        kept150 += exact.iter().filter(|(id, _)| got.contains(id)).count() as f64 / 150.0;
        kept10 += exact[..10]
            .iter()
            .filter(|(id, _)| got.contains(id))
            .count() as f64
            / 10.0;
    }
    println!(
        "nearest 150 of {chunks}: exact scan of the file {:.1} / {:.1} ms, sign bits then {} rescored {:.1} / {:.1} ms (p50 / p95); the prefilter keeps {:.3} of the exact top 150 and {:.3} of the exact top 10",
        percentile(&mut exact_ms, 0.5),
        percentile(&mut exact_ms, 0.95),
        vector_file::RESCORE,
        percentile(&mut signs_ms, 0.5),
        percentile(&mut signs_ms, 0.95),
        kept150 / 30.0,
        kept10 / 30.0
    );
    drop(vf);

    let run = |label: &str, conn: &rusqlite::Connection, semantic: bool, second: &hop::Hop| {
        let mut lat = Vec::new();
        for round in 0..3 {
            for (text, qv) in &queries {
                let params = Request {
                    query: text,
                    limit: Some(10),
                    ..Request::default()
                }
                .parse(&cfg.search, usize::MAX)
                .unwrap();
                let t = Instant::now();
                let out = if semantic {
                    hybrid::hybrid_fused(conn, &cfg.search, &params, qv, fusion, None, second)
                        .unwrap()
                } else {
                    keyword::search(conn, &cfg.search, &params).unwrap()
                };
                std::hint::black_box(out);
                if round > 0 {
                    lat.push(t.elapsed().as_secs_f64() * 1e3);
                }
            }
        }
        println!(
            "  {label:<58} p50 {:.1} ms  p95 {:.1} ms",
            percentile(&mut lat, 0.5),
            percentile(&mut lat, 0.95)
        );
    };
    println!(
        "search over {chunks} chunks, {} queries x2 (after one warm-up round), the query vector given:",
        queries.len()
    );
    run("keyword only", &conn, false, &hop::OFF);
    run(
        "hybrid, vectors from the file (pms search, pms serve)",
        &conn,
        true,
        &hop::SECOND_HOP,
    );
    run("  the same without the second hop", &conn, true, &hop::OFF);
    if std::env::var_os("PMS_BENCH_STREAMED").is_some() {
        let aside = base.join("aside.vec");
        std::fs::rename(&file, &aside).unwrap();
        run(
            "hybrid, vectors streamed from SQLite (before the file)",
            &conn,
            true,
            &hop::SECOND_HOP,
        );
        std::fs::rename(&aside, &file).unwrap();
    }
}

fn build(
    conn: &mut rusqlite::Connection,
    rng: &mut Rng,
    centres: &[Vec<f32>],
    chunks: usize,
    model: &str,
) {
    conn.execute_batch(
        "DELETE FROM chunks; DELETE FROM files; DELETE FROM chunk_vectors; DELETE FROM meta;",
    )
    .unwrap();
    let words: Vec<String> = (0..VOCAB).map(word).collect();
    let tx = conn.transaction().unwrap();
    {
        let mut file = tx
            .prepare(
                "INSERT INTO files(id, uri, abs_path, source, project, session_id, size, mtime_ns, content_hash)
                 VALUES (?1, ?2, ?2, 'transcript', ?3, ?4, 0, 0, 0)",
            )
            .unwrap();
        for f in 0..FILES {
            file.execute(rusqlite::params![
                f as i64 + 1,
                format!("cc://p{}/s{f}", f % 50),
                format!("project-{}", f % 50),
                format!("s{f}")
            ])
            .unwrap();
        }
        let mut chunk = tx
            .prepare(
                "INSERT INTO chunks(id, file_id, source, role, line_start, line_end, ts, text)
                 VALUES (?1, ?2, 'transcript', 'user', ?3, ?3, '2026-11-01T00:00:00Z', ?4)",
            )
            .unwrap();
        let mut fts = tx
            .prepare("INSERT INTO transcript_fts(rowid, body, uni) VALUES (?1, ?2, '')")
            .unwrap();
        let mut vec = tx
            .prepare("INSERT INTO chunk_vectors(chunk_id, vec) VALUES (?1, ?2)")
            .unwrap();
        for i in 0..chunks {
            let id = i as i64 + 1;
            let file_id = (i % FILES) as i64 + 1;
            let text: Vec<&str> = (0..30).map(|_| words[rng.word()].as_str()).collect();
            let text = text.join(" ");
            chunk
                .execute(rusqlite::params![id, file_id, (i / FILES) as i64 + 1, text])
                .unwrap();
            fts.execute(rusqlite::params![id, text]).unwrap();
            let c = &centres[rng.next() as usize % centres.len()];
            vec.execute(rusqlite::params![
                id,
                vectors::quantise(&around(rng, c, 0.8))
            ])
            .unwrap();
        }
    }
    db::set_meta(&tx, "embedding_model", model).unwrap();
    tx.commit().unwrap();
    db::checkpoint_truncate(conn);
}
