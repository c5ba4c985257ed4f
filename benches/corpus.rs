//! A synthetic Claude Code history for benchmarks: thousands of session
//! files shaped like real transcripts (user prompts, assistant messages split
//! across lines that share a message id, tool calls and results, and the
//! metadata lines Claude Code interleaves), with words drawn from a Zipf
//! distribution so that common words match many rows, as in real text.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;

use serde_json::json;

const COMMON: &[&str] = &[
    "the", "to", "and", "a", "of", "in", "is", "it", "that", "for", "you", "this", "on", "with",
    "we", "can", "be", "file", "test", "run", "error", "function", "code", "add", "use", "change",
    "fix", "build", "data", "value", "line", "check", "update", "config", "return", "type", "new",
    "now", "should", "will", "not", "from", "let", "see", "here", "need", "make", "issue",
    "output", "work",
];

/// Topic words, including those of the labelled queries, so searches cost
/// what they would on a real history.
const TOPICAL: &[&str] = &[
    "database",
    "index",
    "query",
    "billing",
    "invoice",
    "shard",
    "tenant",
    "postgres",
    "autovacuum",
    "kubernetes",
    "pod",
    "memory",
    "heap",
    "token",
    "refresh",
    "jwt",
    "redis",
    "cache",
    "stampede",
    "deploy",
    "rollback",
    "canary",
    "migration",
    "webhook",
    "stripe",
    "idempotent",
    "docker",
    "image",
    "terraform",
    "dns",
    "react",
    "render",
    "cookie",
    "safari",
    "funnel",
    "sample",
    "conversion",
    "dbt",
    "pricing",
    "churn",
    "activation",
    "referral",
    "retention",
    "newsletter",
    "subject",
    "hiring",
    "contract",
    "kyoto",
    "sourdough",
    "latency",
    "throughput",
    "benchmark",
    "rust",
    "tokio",
    "runtime",
    "borrow",
    "lifetime",
    "trait",
    "async",
    "sqlite",
    "wal",
    "fts5",
    "search",
    "ranking",
    "embedding",
    "dashboard",
    "onboarding",
    "checklist",
    "experiment",
    "permissions",
    "sso",
    "roadmap",
    "prd",
];

const CJK: &[&str] = &[
    "数据库",
    "迁移",
    "部署",
    "回滚",
    "缓存",
    "雪崩",
    "需求",
    "评审",
    "定价",
    "增长",
    "实验",
    "留存",
    "用户",
    "访谈",
    "周报",
    "连接池",
    "冷启动",
    "优化",
    "接口",
    "拉新",
    "活动",
    "转化率",
    "首页",
];

pub struct Gen {
    rng: fastrand::Rng,
    vocab: Vec<String>,
    /// Shape the lines like real Claude Code transcripts (most bytes are
    /// metadata and full tool output that the index keeps only a slice of),
    /// rather than text-dense.
    pub realistic: bool,
}

impl Gen {
    pub fn new(seed: u64) -> Gen {
        // Frequency ranks: the common words first, then generated words with
        // the topical words spread among them every 60 ranks from rank 100
        // (so "database" is common, "autovacuum" rare), as in real text.
        let mut vocab: Vec<String> = COMMON.iter().map(|s| s.to_string()).collect();
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut topical = TOPICAL.iter();
        while vocab.len() < 20_000 {
            if vocab.len() >= 100
                && (vocab.len() - 100).is_multiple_of(60)
                && let Some(t) = topical.next()
            {
                vocab.push(t.to_string());
                continue;
            }
            let len = rng.usize(4..10);
            vocab.push(
                (0..len)
                    .map(|_| rng.alphabetic().to_ascii_lowercase())
                    .collect(),
            );
        }
        Gen {
            rng,
            vocab,
            realistic: false,
        }
    }

    /// A word with Zipf-like frequency: rank r drawn with probability ~ 1/r.
    fn word(&mut self) -> &str {
        let n = self.vocab.len() as f64;
        let u = self.rng.f64();
        let r = (n.powf(u) as usize)
            .saturating_sub(1)
            .min(self.vocab.len() - 1);
        &self.vocab[r]
    }

    pub fn sentence(&mut self, words: usize) -> String {
        let mut s = String::new();
        for i in 0..words {
            if i > 0 {
                s.push(' ');
            }
            if self.rng.u8(..) < 6 {
                s.push_str(CJK[self.rng.usize(..CJK.len())]);
            } else {
                let w = self.word().to_string();
                s.push_str(&w);
            }
        }
        s.push('.');
        s
    }

    /// One session of about `turns` turns, as JSONL lines.
    pub fn session(
        &mut self,
        out: &mut impl Write,
        turns: usize,
        day: usize,
    ) -> std::io::Result<()> {
        let mut t = 0usize;
        let mut msg = 0usize;
        while t < turns {
            let ts = format!(
                "2026-{:02}-{:02}T{:02}:{:02}:00Z",
                1 + day % 11,
                1 + day % 28,
                t / 60 % 24,
                t % 60
            );
            let words = self.rng.usize(8..40);
            let prompt = self.sentence(words);
            writeln!(
                out,
                "{}",
                json!({"type": "user", "timestamp": ts, "sessionId": "s", "cwd": "/home/u/app",
                "message": {"role": "user", "content": prompt}})
            )?;
            t += 1;
            // metadata Claude Code interleaves (attachments, snapshots)
            let noise = self.sentence(120);
            writeln!(
                out,
                "{}",
                json!({"type": "attachment", "timestamp": ts,
                "attachment": {"type": "hook_success", "content": noise}})
            )?;
            if self.realistic {
                // the request snapshot Claude Code writes with each API call
                let shape = self.sentence(500);
                writeln!(
                    out,
                    "{}",
                    json!({"type": "api-request-shape", "timestamp": ts,
                    "shape": {"system": [{"type": "text", "text": shape}]}})
                )?;
            }
            msg += 1;
            let id = format!("msg_{day}_{msg}");
            let words = self.rng.usize(30..90);
            let answer = self.sentence(words);
            writeln!(
                out,
                "{}",
                json!({"type": "assistant", "timestamp": ts,
                "message": {"id": id, "role": "assistant", "content": [{"type": "text", "text": answer}]}})
            )?;
            if self.rng.bool() {
                let cmd = self.sentence(5);
                writeln!(
                    out,
                    "{}",
                    json!({"type": "assistant", "timestamp": ts,
                    "message": {"id": id, "role": "assistant",
                        "content": [{"type": "tool_use", "id": format!("tu_{msg}"), "name": "Bash", "input": {"command": cmd}}]}})
                )?;
                // real tool output (a file read, a build log) is stored whole
                let result = self.sentence(if self.realistic { 800 } else { 60 });
                writeln!(
                    out,
                    "{}",
                    json!({"type": "user", "timestamp": ts,
                    "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("tu_{msg}"), "content": result}]}})
                )?;
                t += 1;
            }
            t += 1;
        }
        Ok(())
    }
}

/// Writes `files` sessions under `root/<project>/` with about `turns_each`
/// turns each, plus one session of about `big_mb` MB (`big.jsonl`). Returns
/// the total bytes written.
pub fn write_history(
    root: &Path,
    files: usize,
    turns_each: usize,
    big_mb: usize,
    seed: u64,
    realistic: bool,
) -> u64 {
    let mut g = Gen::new(seed);
    g.realistic = realistic;
    let mut total = 0;
    for i in 0..files {
        let dir = root.join(format!("-home-u-project{}", i % 40));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("session-{i:05}.jsonl"));
        let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        g.session(&mut w, turns_each, i).unwrap();
        w.flush().unwrap();
        drop(w);
        total += std::fs::metadata(&path).unwrap().len();
    }
    if big_mb > 0 {
        let dir = root.join("-home-u-big");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big.jsonl");
        let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut day = 0;
        while w.get_ref().metadata().unwrap().len() < (big_mb as u64) << 20 {
            g.session(&mut w, 200, day).unwrap();
            w.flush().unwrap();
            day += 1;
        }
        total += std::fs::metadata(&path).unwrap().len();
    }
    total
}

/// About `bytes` more of conversation, appended to `path`.
pub fn append(path: &Path, bytes: usize, seed: u64) {
    let mut g = Gen::new(seed);
    g.realistic = true;
    let mut buf = Vec::new();
    let mut day = 100;
    while buf.len() < bytes {
        g.session(&mut buf, 4, day).unwrap();
        day += 1;
    }
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(&buf).unwrap();
}
