//! The vector side file, `.pms/index.vec`: every chunk vector of the index
//! in one memory-mapped file, so that a search scans them in place instead
//! of having SQLite hand over a million rows.
//!
//! `chunk_vectors` in `index.db` stays the record (written in the same
//! transactions as the chunks, so a crash loses nothing there); this file is
//! derived from it after an index run and is only ever read as a whole
//! snapshot. Over 1.1M chunks, streaming the rows from SQLite took 110 ms
//! (p50) per `pms search`; see [`nearest`] for what the file takes.
//!
//! Format (little-endian; docs/architecture.md, "The vector file"):
//!
//! ```text
//! 0   magic "PMSVEC\0\0" (8)     8  version u32 (1)     12 dim u32
//! 16  count u64                  24 max_chunk_id i64    32 stamp [16]
//! 48  model id length u32        52 zero [12]           64 model id, zero-padded to 8
//! vectors   count × dim i8 (quantised as index::vectors::quantise), padded to 8
//! ids       count × i64, ascending (the chunk of each vector)
//! signs     count × ceil(dim / 64) × u64 (bit i set: component i > 0)
//! trailer   the stamp again [16]
//! ```
//!
//! When it is used: `meta.vector_file` holds the stamp of the file the last
//! index run wrote and `meta.vector_file_max` its largest chunk id. A file
//! whose stamp, model, size or trailer does not match is not read (the
//! search streams from SQLite as before it existed). Vectors added after it
//! (chunk id above its largest) are read from SQLite on top of it; chunks
//! deleted since are dropped when their hits are fetched. The one change
//! that would make it wrong, a chunk id used again for a new chunk, fires
//! the trigger `vector_file_stale_on_reuse`, which deletes the stamp in the
//! same transaction. It is written to `index.vec.tmp`, synced, renamed into
//! place, and only then stamped in `meta`: a run killed at any point leaves
//! either the old file with its stamp, or a file no stamp names.

use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rusqlite::{Connection, OptionalExtension, params};

use super::vectors::{ScanQuery, TopK, stored_model};

const MAGIC: &[u8; 8] = b"PMSVEC\0\0";
const VERSION: u32 = 1;
const HEADER: usize = 64;

/// Vectors added since the file was written that SQLite may hand over on
/// top of it before the next index run rewrites it: reading 20,000 rows
/// costs about 2 ms (110 ms for 1.1M).
const DELTA_MAX: i64 = 20_000;

/// Below this many vectors every one is scored exactly; above, the
/// sign-bit prefilter picks [`RESCORE`] candidates first.
const EXACT_MAX: usize = 50_000;

/// Candidates the sign bits pass on to the exact (int8) score, per search.
/// Measured over 1.1M chunks (`cargo bench --bench vector_file`): see
/// docs/architecture.md, "The vector file", for the share of the exact top
/// 150 this keeps.
pub const RESCORE: usize = 5_000;

/// Where the vector file of the index at `db` lives.
pub fn path_for(db: &Path) -> PathBuf {
    db.with_extension("vec")
}

fn tmp_path(db: &Path) -> PathBuf {
    db.with_extension("vec.tmp")
}

#[derive(Debug, thiserror::Error)]
pub enum VectorFileError {
    #[error("index database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error(
        "{path}: the vector file could not be written ({cause}); searches read the vectors from index.db meanwhile (slower).\n  Fix: {fix}"
    )]
    Write {
        path: PathBuf,
        cause: String,
        fix: &'static str,
    },
}

/// What [`refresh`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    /// No vectors in the index: no file (one left over was removed).
    NoVectors,
    /// The file is current, or behind by fewer than [`DELTA_MAX`] vectors.
    Kept,
    /// Written anew, with this many vectors.
    Written { vectors: usize, elapsed_ms: u128 },
}

fn stamp_of(conn: &Connection) -> rusqlite::Result<Option<(String, i64)>> {
    let stamp = super::db::get_meta(conn, "vector_file");
    let max = super::db::get_meta(conn, "vector_file_max").and_then(|m| m.parse().ok());
    Ok(stamp.zip(max))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Brings the vector file of the index at `db` up to date after an index
/// run: rewritten when it is missing, stale, or more than [`DELTA_MAX`]
/// vectors (or a tenth of it) behind; removed when the index holds none.
pub fn refresh(conn: &Connection, db: &Path) -> Result<Refresh, VectorFileError> {
    let file = path_for(db);
    // what a write killed before its rename left (never read: no stamp
    // names it)
    let _ = std::fs::remove_file(tmp_path(db));
    let Some(model) = stored_model(conn) else {
        return remove(conn, &file);
    };
    let total: i64 = conn.query_row("SELECT count(*) FROM chunk_vectors", [], |r| r.get(0))?;
    if total == 0 {
        return remove(conn, &file);
    }
    if let Some((stamp, max)) = stamp_of(conn)?
        && let Some(f) = VectorFile::open_checked(&file, &stamp, &model)
    {
        let covered: i64 = conn.query_row(
            "SELECT count(*) FROM chunk_vectors WHERE chunk_id <= ?1",
            [max],
            |r| r.get(0),
        )?;
        let behind = total - covered;
        // vectors of deleted chunks still in the file crowd the candidates
        let dead = f.count as i64 - covered;
        let slack = DELTA_MAX.max(f.count as i64 / 10);
        if behind <= slack && dead <= slack {
            return Ok(Refresh::Kept);
        }
    }
    write(conn, db, &model)
}

fn remove(conn: &Connection, file: &Path) -> Result<Refresh, VectorFileError> {
    conn.execute(
        "DELETE FROM meta WHERE key IN ('vector_file', 'vector_file_max')",
        [],
    )?;
    let _ = std::fs::remove_file(file);
    Ok(Refresh::NoVectors)
}

/// Writes the file anew from `chunk_vectors` (vectors of the model's
/// length only) and stamps it in `meta`.
fn write(conn: &Connection, db: &Path, model: &str) -> Result<Refresh, VectorFileError> {
    let started = Instant::now();
    let file = path_for(db);
    let tmp = tmp_path(db);
    let dim: Option<i64> = conn
        .query_row(
            "SELECT length(vec) FROM chunk_vectors ORDER BY chunk_id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .optional()?;
    let Some(dim) = dim.filter(|d| *d > 0).map(|d| d as usize) else {
        return remove(conn, &file);
    };
    // The old stamp goes first: from here until the new one is written, no
    // file is used (a kill in between leaves the search streaming).
    conn.execute(
        "DELETE FROM meta WHERE key IN ('vector_file', 'vector_file_max')",
        [],
    )?;
    let io = |cause: std::io::Error| {
        let _ = std::fs::remove_file(&tmp);
        let full = cause.kind() == std::io::ErrorKind::StorageFull;
        VectorFileError::Write {
            path: file.clone(),
            cause: if full {
                "the disk is full".to_string()
            } else {
                cause.to_string()
            },
            fix: if full {
                "free some space on that disk, then run `pms index`"
            } else {
                "check that the folder is writable, then run `pms index`"
            },
        }
    };
    let words = dim.div_ceil(64);
    let model_bytes = model.as_bytes();
    let model_padded = model_bytes.len().div_ceil(8) * 8;
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp).map_err(io)?);
    out.write_all(&vec![0u8; HEADER + model_padded])
        .map_err(io)?;
    let mut ids: Vec<i64> = Vec::new();
    let mut signs: Vec<u64> = Vec::new();
    {
        let mut stmt = conn.prepare(
            "SELECT chunk_id, vec FROM chunk_vectors WHERE length(vec) = ?1 ORDER BY chunk_id",
        )?;
        let mut rows = stmt.query([dim as i64])?;
        while let Some(row) = rows.next()? {
            let blob = row.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
            out.write_all(blob).map_err(io)?;
            ids.push(row.get(0)?);
            let at = signs.len();
            signs.resize(at + words, 0);
            for (i, b) in blob.iter().enumerate() {
                if (*b as i8) > 0 {
                    signs[at + i / 64] |= 1 << (i % 64);
                }
            }
        }
    }
    let count = ids.len();
    let max_id = ids.last().copied().unwrap_or(0);
    out.write_all(&vec![0u8; (count * dim).next_multiple_of(8) - count * dim])
        .map_err(io)?;
    for id in &ids {
        out.write_all(&id.to_le_bytes()).map_err(io)?;
    }
    for w in &signs {
        out.write_all(&w.to_le_bytes()).map_err(io)?;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let stamp = xxhash_rust::xxh3::xxh3_128(
        format!("{nanos} {} {count} {max_id} {model}", std::process::id()).as_bytes(),
    )
    .to_le_bytes();
    out.write_all(&stamp).map_err(io)?;
    let mut header = Vec::with_capacity(HEADER + model_padded);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&(dim as u32).to_le_bytes());
    header.extend_from_slice(&(count as u64).to_le_bytes());
    header.extend_from_slice(&max_id.to_le_bytes());
    header.extend_from_slice(&stamp);
    header.extend_from_slice(&(model_bytes.len() as u32).to_le_bytes());
    header.resize(HEADER, 0);
    header.extend_from_slice(model_bytes);
    header.resize(HEADER + model_padded, 0);
    let mut f = out.into_inner().map_err(|e| io(e.into_error()))?;
    f.seek(SeekFrom::Start(0)).map_err(io)?;
    f.write_all(&header).map_err(io)?;
    // the crash tests' points: the file whole but not in place, then in
    // place but not stamped
    crate::platform::host::durable::fault_point("vector_file", &tmp).map_err(io)?;
    f.sync_all().map_err(io)?;
    drop(f);
    crate::platform::host::durable::fault_point("rename", &file).map_err(io)?;
    std::fs::rename(&tmp, &file).map_err(io)?;
    if let Some(dir) = file.parent()
        && let Ok(d) = std::fs::File::open(dir)
    {
        let _ = d.sync_all();
    }
    crate::platform::host::durable::fault_point("vector_file_stamp", &file).map_err(io)?;
    super::db::set_meta(conn, "vector_file", &hex(&stamp))?;
    super::db::set_meta(conn, "vector_file_max", &max_id.to_string())?;
    Ok(Refresh::Written {
        vectors: count,
        elapsed_ms: started.elapsed().as_millis(),
    })
}

/// A vector file mapped for reading.
pub struct VectorFile {
    map: memmap2::Mmap,
    stamp: String,
    model: String,
    /// The file's length, inode and modification time when mapped.
    identity: (u64, u64, Option<std::time::SystemTime>),
    pub dim: usize,
    pub count: usize,
    pub max_chunk_id: i64,
    vectors_at: usize,
    ids_at: usize,
    signs_at: usize,
    words: usize,
}

impl VectorFile {
    /// The file of the index `conn` is open on, if it is the one `meta`
    /// names and was made by the model the index's vectors come from.
    ///
    /// The mapping is kept for the process's next search while the stamp
    /// stays: mapping the file anew each time made every search fault its
    /// pages in again (`pms serve`; `pms search` maps it once anyway).
    pub fn for_index(conn: &Connection) -> Option<std::sync::Arc<VectorFile>> {
        use std::sync::{Arc, Mutex};
        static OPEN: Mutex<Option<(PathBuf, Arc<VectorFile>)>> = Mutex::new(None);
        let db = conn.path().filter(|p| !p.is_empty())?;
        let (stamp, _) = stamp_of(conn).ok()??;
        let model = stored_model(conn)?;
        let path = path_for(Path::new(db));
        let identity = identity(&path)?;
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((p, f)) = open.as_ref()
            && *p == path
            && f.stamp == stamp
            && f.model == model
            && f.identity == identity
        {
            return Some(f.clone());
        }
        let f = Arc::new(VectorFile::open_checked(&path, &stamp, &model)?);
        *open = Some((path, f.clone()));
        Some(f)
    }

    fn open_checked(path: &Path, stamp: &str, model: &str) -> Option<VectorFile> {
        let file = std::fs::File::open(path).ok()?;
        let identity = identity(path)?;
        // SAFETY: pms replaces this file only by renaming a new one over
        // it, never rewrites it in place, so the mapped bytes do not
        // change; every read below is bounds-checked against the length.
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        let u32_at = |at: usize| u32::from_le_bytes(map[at..at + 4].try_into().unwrap());
        let u64_at = |at: usize| u64::from_le_bytes(map[at..at + 8].try_into().unwrap());
        if map.len() < HEADER || &map[..8] != MAGIC || u32_at(8) != VERSION {
            return None;
        }
        let dim = u32_at(12) as usize;
        let count = usize::try_from(u64_at(16)).ok()?;
        let max_chunk_id = u64_at(24) as i64;
        if hex(&map[32..48]) != stamp {
            return None;
        }
        let model_len = u32_at(48) as usize;
        let vectors_at = HEADER.checked_add(model_len.div_ceil(8) * 8)?;
        if map.len() < vectors_at || &map[HEADER..HEADER + model_len] != model.as_bytes() {
            return None;
        }
        let words = dim.div_ceil(64);
        let ids_at = vectors_at.checked_add(count.checked_mul(dim)?.next_multiple_of(8))?;
        let signs_at = ids_at.checked_add(count.checked_mul(8)?)?;
        let end = signs_at.checked_add(count.checked_mul(words * 8)?)?;
        if dim == 0 || map.len() != end.checked_add(16)? || map[end..end + 16] != map[32..48] {
            return None;
        }
        Some(VectorFile {
            map,
            stamp: stamp.to_string(),
            model: model.to_string(),
            identity,
            dim,
            count,
            max_chunk_id,
            vectors_at,
            ids_at,
            signs_at,
            words,
        })
    }

    fn id(&self, i: usize) -> i64 {
        let at = self.ids_at + i * 8;
        i64::from_le_bytes(self.map[at..at + 8].try_into().unwrap())
    }

    fn vector(&self, i: usize) -> &[u8] {
        let at = self.vectors_at + i * self.dim;
        &self.map[at..at + self.dim]
    }

    /// The `k` nearest vectors with their cosines. Over more than
    /// [`EXACT_MAX`] vectors, the [`RESCORE`] whose sign bits differ least
    /// from the query's are scored exactly; below, every one is.
    pub fn nearest(&self, query_vec: &[f32], k: usize) -> Vec<(i64, f32)> {
        let scan = if self.count <= EXACT_MAX.max(RESCORE) {
            Scan::Exact
        } else {
            Scan::SignsFirst
        };
        self.nearest_by(query_vec, k, scan)
    }

    /// [`VectorFile::nearest`] with the scan chosen (the benchmark and the
    /// tests compare the two).
    pub fn nearest_by(&self, query_vec: &[f32], k: usize, scan: Scan) -> Vec<(i64, f32)> {
        if query_vec.len() != self.dim || k == 0 {
            return Vec::new();
        }
        let query = ScanQuery::new(query_vec);
        let mut top = TopK::new(k);
        match scan {
            Scan::Exact => {
                for i in 0..self.count {
                    top.offer(self.id(i), query.cosine(self.vector(i)));
                }
            }
            Scan::SignsFirst => {
                let mut q = vec![0u64; self.words];
                for (i, x) in query_vec.iter().enumerate() {
                    if *x > 0.0 {
                        q[i / 64] |= 1 << (i % 64);
                    }
                }
                let signs = &self.map[self.signs_at..self.signs_at + self.count * self.words * 8];
                for i in hamming_closest(signs, &q, RESCORE) {
                    top.offer(self.id(i), query.cosine(self.vector(i)));
                }
            }
        }
        top.into_sorted()
    }
}

/// How [`VectorFile::nearest_by`] finds the nearest vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// Every vector's cosine.
    Exact,
    /// The [`RESCORE`] nearest by sign bits, then their cosines.
    SignsFirst,
}

fn identity(path: &Path) -> Option<(u64, u64, Option<std::time::SystemTime>)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.ino(), m.modified().ok()))
}

/// The indexes of the `n` sign vectors in `signs` (each `q.len()` words)
/// nearest `q` in Hamming distance.
fn hamming_closest(signs: &[u8], q: &[u64], n: usize) -> Vec<usize> {
    let words = q.len();
    let count = signs.len() / (words * 8);
    // distances counted per value (0..=bits), then the cut found from the
    // counts: no heap over a million entries
    let bits = words * 64;
    let mut dist: Vec<u16> = Vec::with_capacity(count);
    let distance = |i: usize| -> u16 {
        let mut d = 0u32;
        for (w, qw) in q.iter().enumerate() {
            let at = (i * words + w) * 8;
            let s = u64::from_le_bytes(signs[at..at + 8].try_into().unwrap());
            d += (s ^ qw).count_ones();
        }
        d as u16
    };
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT (checked just above).
            unsafe { distances_popcnt(count, &distance, &mut dist) };
        } else {
            dist.extend((0..count).map(distance));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    dist.extend((0..count).map(distance));
    let mut histogram = vec![0usize; bits + 1];
    for d in &dist {
        histogram[*d as usize] += 1;
    }
    let mut cut = 0;
    let mut taken = 0;
    while cut < bits && taken + histogram[cut] < n {
        taken += histogram[cut];
        cut += 1;
    }
    // everything below the cut, then enough at the cut
    let mut room_at_cut = n - taken;
    let mut out = Vec::with_capacity(n);
    for (i, d) in dist.iter().enumerate() {
        let d = *d as usize;
        if d < cut {
            out.push(i);
        } else if d == cut && room_at_cut > 0 {
            out.push(i);
            room_at_cut -= 1;
        }
    }
    out
}

/// [`hamming_closest`]'s loop compiled with the POPCNT instruction (the
/// baseline x86-64 target counts bits in software, several times slower).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn distances_popcnt(count: usize, distance: &dyn Fn(usize) -> u16, out: &mut Vec<u16>) {
    out.extend((0..count).map(distance));
}

/// The nearest `k` vectors of the whole index, from the vector file and
/// the vectors added after it, or None without a current file. Search does
/// the two steps itself (`search::hybrid`, the scan on its own thread);
/// the tests ask here.
#[cfg(test)]
fn nearest(
    conn: &Connection,
    query_vec: &[f32],
    k: usize,
) -> rusqlite::Result<Option<Vec<(i64, f32)>>> {
    let Some(file) = VectorFile::for_index(conn) else {
        return Ok(None);
    };
    let found = file.nearest(query_vec, k);
    with_newer(conn, &file, found, query_vec, k).map(Some)
}

/// `found` (the nearest of `file`, which a caller may have scanned on
/// another thread) merged with the vectors added to the index after the
/// file was written, the nearest `k` of all.
pub fn with_newer(
    conn: &Connection,
    file: &VectorFile,
    mut found: Vec<(i64, f32)>,
    query_vec: &[f32],
    k: usize,
) -> rusqlite::Result<Vec<(i64, f32)>> {
    let query = ScanQuery::new(query_vec);
    let mut stmt =
        conn.prepare_cached("SELECT chunk_id, vec FROM chunk_vectors WHERE chunk_id > ?1")?;
    let mut rows = stmt.query(params![file.max_chunk_id])?;
    let mut top = TopK::new(k);
    for (id, c) in found.drain(..) {
        top.offer(id, c);
    }
    while let Some(row) = rows.next()? {
        let blob = row.get_ref(1)?.as_blob()?;
        top.offer(row.get(0)?, query.cosine(blob));
    }
    Ok(top.into_sorted())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIM: usize = 16;

    /// A unit vector pointing mostly along axis `axis`, tilted by `tilt`.
    fn vector(axis: usize, tilt: f32) -> Vec<f32> {
        let mut v = vec![tilt; DIM];
        v[axis % DIM] = 1.0;
        crate::memory::embed::normalise(&mut v);
        v
    }

    /// An index with `n` chunks (ids 1..=n), chunk i's vector along axis i.
    fn index(dir: &Path, n: usize) -> (Connection, PathBuf) {
        let db = dir.join("index.db");
        let conn = super::super::db::open_rw(&db).unwrap();
        conn.execute(
            "INSERT INTO files(id, uri, abs_path, source, size, mtime_ns, content_hash)
             VALUES (1, 'n.md', 'n.md', 'knowledge', 0, 0, 0)",
            [],
        )
        .unwrap();
        for i in 1..=n as i64 {
            add(&conn, i);
        }
        super::super::db::set_meta(&conn, "embedding_model", "test:16").unwrap();
        (conn, db)
    }

    fn add(conn: &Connection, id: i64) {
        conn.execute(
            "INSERT INTO chunks(id, file_id, source, line_start, line_end, text)
             VALUES (?1, 1, 'knowledge', 1, 1, 'x')",
            [id],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO chunk_vectors(chunk_id, vec) VALUES (?1, ?2)",
            params![
                id,
                super::super::vectors::quantise(&vector(id as usize, 0.05))
            ],
        )
        .unwrap();
    }

    /// What streaming every row from SQLite finds (the reference).
    fn streamed(conn: &Connection, q: &[f32], k: usize) -> Vec<i64> {
        let query = ScanQuery::new(q);
        let mut top = TopK::new(k);
        let mut st = conn
            .prepare("SELECT chunk_id, vec FROM chunk_vectors")
            .unwrap();
        let mut rows = st.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            top.offer(
                r.get(0).unwrap(),
                query.cosine(r.get_ref(1).unwrap().as_blob().unwrap()),
            );
        }
        top.into_sorted().into_iter().map(|(id, _)| id).collect()
    }

    fn ids(v: Vec<(i64, f32)>) -> Vec<i64> {
        v.into_iter().map(|(id, _)| id).collect()
    }

    #[test]
    fn written_read_back_and_found_as_sqlite_finds() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, db) = index(dir.path(), 40);
        assert!(VectorFile::for_index(&conn).is_none(), "none written yet");
        assert_eq!(nearest(&conn, &vector(3, 0.0), 5).unwrap(), None);
        let r = refresh(&conn, &db).unwrap();
        assert!(matches!(r, Refresh::Written { vectors: 40, .. }), "{r:?}");
        assert!(!tmp_path(&db).exists());
        let f = VectorFile::for_index(&conn).unwrap();
        assert_eq!((f.dim, f.count, f.max_chunk_id), (DIM, 40, 40));
        for axis in [0, 3, 7] {
            let q = vector(axis, 0.0);
            assert_eq!(
                ids(nearest(&conn, &q, 5).unwrap().unwrap()),
                streamed(&conn, &q, 5)
            );
        }
        // a second run with nothing new keeps it
        assert_eq!(refresh(&conn, &db).unwrap(), Refresh::Kept);
    }

    #[test]
    fn vectors_added_after_the_file_are_found_and_a_reused_id_unstamps_it() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, db) = index(dir.path(), 20);
        refresh(&conn, &db).unwrap();
        // chunk 21 comes after the file: found from SQLite on top of it
        add(&conn, 21);
        let q = vector(21, 0.0);
        let found = ids(nearest(&conn, &q, 3).unwrap().expect("file still used"));
        assert_eq!(found, streamed(&conn, &q, 3));
        assert!(found.contains(&21), "{found:?}");
        // chunk 20 deleted and its id used again for another vector: the
        // file's copy would be wrong, so the trigger un-stamps it
        conn.execute("DELETE FROM chunks WHERE id = 20", [])
            .unwrap();
        conn.execute(
            "INSERT INTO chunks(id, file_id, source, line_start, line_end, text)
             VALUES (20, 1, 'knowledge', 1, 1, 'y')",
            [],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO chunk_vectors(chunk_id, vec) VALUES (20, ?1)",
            [super::super::vectors::quantise(&vector(2, 0.0))],
        )
        .unwrap();
        assert!(
            VectorFile::for_index(&conn).is_none(),
            "stale file not read"
        );
        assert_eq!(nearest(&conn, &q, 3).unwrap(), None);
        assert!(matches!(
            refresh(&conn, &db).unwrap(),
            Refresh::Written { .. }
        ));
        assert!(VectorFile::for_index(&conn).is_some());
    }

    #[test]
    fn a_damaged_or_foreign_file_is_not_read_and_the_next_run_rewrites_it() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, db) = index(dir.path(), 30);
        refresh(&conn, &db).unwrap();
        let file = path_for(&db);
        let whole = std::fs::read(&file).unwrap();
        // cut short, a byte of the trailer changed, another model's stamp
        let cut = whole[..whole.len() - 9].to_vec();
        let mut trailer = whole.clone();
        *trailer.last_mut().unwrap() ^= 1;
        for (what, bytes) in [("cut short", cut), ("trailer changed", trailer)] {
            std::fs::write(&file, &bytes).unwrap();
            assert!(VectorFile::for_index(&conn).is_none(), "{what}");
            std::fs::write(&file, &whole).unwrap();
            assert!(VectorFile::for_index(&conn).is_some(), "{what}: restored");
        }
        super::super::db::set_meta(&conn, "embedding_model", "other:16").unwrap();
        assert!(VectorFile::for_index(&conn).is_none(), "another model's");
        super::super::db::set_meta(&conn, "embedding_model", "test:16").unwrap();
        std::fs::write(&file, b"PMSVEC\0\0 not a vector file").unwrap();
        assert!(VectorFile::for_index(&conn).is_none());
        assert!(matches!(
            refresh(&conn, &db).unwrap(),
            Refresh::Written { .. }
        ));
        assert!(VectorFile::for_index(&conn).is_some());
        // no vectors left: no file
        conn.execute("DELETE FROM chunk_vectors", []).unwrap();
        assert_eq!(refresh(&conn, &db).unwrap(), Refresh::NoVectors);
        assert!(!file.exists());
    }

    #[test]
    fn the_sign_prefilter_finds_the_exact_nearest_among_many() {
        // 60,000 vectors around 300 directions: over EXACT_MAX, so the
        // prefilter runs; the nearest of a query near one direction are
        // that direction's, and the prefilter keeps the exact top 10
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.db");
        let conn = super::super::db::open_rw(&db).unwrap();
        let dim = 64;
        let mut seed = 1u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 2001) as f32 / 1000.0 - 1.0
        };
        let centres: Vec<Vec<f32>> = (0..300)
            .map(|_| {
                let mut c: Vec<f32> = (0..dim).map(|_| next()).collect();
                crate::memory::embed::normalise(&mut c);
                c
            })
            .collect();
        let tx = conn.unchecked_transaction().unwrap();
        for id in 1..=60_000i64 {
            let c = &centres[id as usize % 300];
            let mut v: Vec<f32> = c.iter().map(|x| x + 0.1 * next()).collect();
            crate::memory::embed::normalise(&mut v);
            tx.execute(
                "INSERT INTO chunk_vectors(chunk_id, vec) VALUES (?1, ?2)",
                params![id, super::super::vectors::quantise(&v)],
            )
            .unwrap();
        }
        super::super::db::set_meta(&tx, "embedding_model", "test:64").unwrap();
        tx.commit().unwrap();
        refresh(&conn, &db).unwrap();
        let f = VectorFile::for_index(&conn).unwrap();
        let q = &centres[7];
        let exact = ids(f.nearest_by(q, 10, Scan::Exact));
        let approx = ids(f.nearest(q, 10));
        assert_eq!(approx, exact);
        assert!(exact.iter().all(|id| id % 300 == 7), "{exact:?}");
    }

    #[test]
    fn hamming_closest_takes_the_nearest_and_exactly_n() {
        // one word per vector: distances 0, 1, 2, ... bits from q = 0
        let signs: Vec<u8> = (0..40u64)
            .flat_map(|i| ((1u64 << (i % 20)) - 1).to_le_bytes())
            .collect();
        let got = hamming_closest(&signs, &[0], 5);
        // vectors 0 and 20 are at distance 0, 1 and 21 at 1, then one of
        // 2 and 22 (the first)
        assert_eq!(got, vec![0, 1, 2, 20, 21]);
    }
}
