//! The front matter of a session summary (`sessions/<time>-<id>.md`), as
//! its readers need it: the indexer (which conversation a summary belongs
//! to), crash recovery (how much of the transcript it covers), the page and
//! status. The summary's writer is `memory::sessions::summary`; the reading
//! lives here, below both.

/// The fields of a summary's front matter that its readers use (the index,
/// crash recovery).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SummaryMeta {
    pub session_id: Option<String>,
    pub project: Option<String>,
    pub transcript_ref: Option<String>,
    pub end: Option<String>,
    /// Bytes of the transcript it covers (0 for summaries written before
    /// pms recorded it).
    pub covers: u64,
}

impl SummaryMeta {
    /// Reads `key: value` lines of a leading `---` block (what `memory::sessions::summary::render` writes).
    pub fn parse(text: &str) -> SummaryMeta {
        let mut meta = SummaryMeta::default();
        let mut lines = text.lines();
        if lines.next().map(str::trim) != Some("---") {
            return meta;
        }
        for line in lines {
            if line.trim() == "---" {
                break;
            }
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let v = v.trim().trim_matches('"').to_string();
            match k.trim() {
                "session_id" => meta.session_id = Some(v),
                "project" => meta.project = Some(v),
                "transcript_ref" => meta.transcript_ref = Some(v),
                "end" => meta.end = Some(v),
                "covers" => meta.covers = v.parse().unwrap_or(0),
                _ => {}
            }
        }
        meta
    }
}
