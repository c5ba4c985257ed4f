//! The long-memory labelled set (issue 13): long multi-session conversations
//! written as Claude Code transcripts, questions about them with the turns
//! that hold each answer, and short notes with keyword, abbreviation,
//! paraphrase and Chinese queries.
//!
//! Everything is generated here, deterministically (a fixed seed and our own
//! SplitMix64, so the set never changes under a crate upgrade), from text
//! written for pms; no third-party benchmark text. Two kinds of conversation:
//! software work (a developer and Claude, with tool calls and their results)
//! and personal chats between two named people relayed through Claude Code
//! (one speaks as the user, the other as the assistant; some conversations
//! prefix each turn with the speaker's name, some do not). Facts are planted
//! in chosen turns among filler that reuses the same words (the distractors
//! a real history has), and every question records the JSONL line of each
//! turn that answers it.
//!
//! The set is split by conversation: even-numbered conversations (and every
//! other note query) are the tuning half, the rest are held out. Both halves
//! are indexed together, so each is searched among the other's distractors.
#![allow(dead_code)]
// `*rng.pick(..)` fixes the type `pick` infers (clippy would remove it and break that).
#![allow(clippy::explicit_auto_deref)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// What a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    SingleFact,
    Temporal,
    MultiHop,
    /// Nothing in the history answers it.
    NoAnswer,
    /// Note queries: words shared with the note.
    Keyword,
    /// Note queries: an abbreviation for the note's words, or the reverse.
    Abbreviation,
    /// Note queries: the same meaning in other words.
    Paraphrase,
    /// Note queries in Chinese.
    Cjk,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::SingleFact => "single-fact",
            Kind::Temporal => "temporal",
            Kind::MultiHop => "multi-hop",
            Kind::NoAnswer => "no-answer",
            Kind::Keyword => "keyword",
            Kind::Abbreviation => "abbreviation",
            Kind::Paraphrase => "paraphrase",
            Kind::Cjk => "cjk",
        }
    }
    pub fn is_note_query(self) -> bool {
        matches!(
            self,
            Kind::Keyword | Kind::Abbreviation | Kind::Paraphrase | Kind::Cjk
        )
    }
}

/// A turn that answers a question: the conversation file and a JSONL line
/// of the turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    pub uri: String,
    pub line: u64,
}

#[derive(Debug, Clone)]
pub struct Question {
    pub id: String,
    pub text: String,
    pub kind: Kind,
    /// The conversation (project folder) the answer is in; for note queries,
    /// empty.
    pub conversation: String,
    pub evidence: Vec<Evidence>,
    /// Note queries: the relevant files (workspace paths).
    pub relevant: Vec<String>,
    pub held_out: bool,
}

pub struct MemorySet {
    pub questions: Vec<Question>,
    pub conversations: usize,
    pub sessions: usize,
    pub turns: usize,
    pub notes: usize,
}

/// The project folder name of a conversation.
fn folder(slug: &str) -> String {
    format!("-home-{slug}")
}

// ---------------------------------------------------------------- randomness

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
    fn hex(&mut self, n: usize) -> String {
        let mut s = String::new();
        while s.len() < n {
            s.push_str(&format!("{:016x}", self.next()));
        }
        s.truncate(n);
        s
    }
    fn uuid(&mut self) -> String {
        let h = self.hex(32);
        format!(
            "{}-{}-{}-{}-{}",
            &h[..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..]
        )
    }
}

/// `{name}` slots filled from `vars`.
fn fill(template: &str, vars: &[(&str, &str)]) -> String {
    let mut s = template.to_string();
    for (k, v) in vars {
        s = s.replace(&format!("{{{k}}}"), v);
    }
    assert!(!s.contains('{'), "unfilled slot in {s:?}");
    s
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

// ------------------------------------------------------------- the writer

/// One session file being written, line by line, as Claude Code writes them.
struct Session {
    uri: String,
    path: PathBuf,
    session_id: String,
    cwd: String,
    lines: Vec<String>,
    /// Seconds since the epoch of the next line.
    clock: i64,
    parent: Option<String>,
    turns: usize,
}

fn rfc3339(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

impl Session {
    fn push(&mut self, v: Value) -> u64 {
        self.lines.push(v.to_string());
        self.lines.len() as u64
    }

    fn tick(&mut self, rng: &mut Rng, lo: i64, hi: i64) -> String {
        self.clock += lo + rng.below((hi - lo + 1) as usize) as i64;
        rfc3339(self.clock)
    }

    fn common(&self, rng: &mut Rng, kind: &str, ts: &str) -> (String, Value) {
        let uuid = rng.uuid();
        let v = json!({
            "parentUuid": self.parent,
            "isSidechain": false,
            "type": kind,
            "uuid": uuid,
            "timestamp": ts,
            "userType": "external",
            "entrypoint": "cli",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.330",
            "gitBranch": "main",
        });
        (uuid, v)
    }

    /// A typed prompt; returns its line.
    fn user(&mut self, rng: &mut Rng, text: &str) -> u64 {
        let ts = self.tick(rng, 30, 400);
        self.push(
            json!({"type": "queue-operation", "operation": "enqueue", "timestamp": ts,
                         "sessionId": self.session_id, "content": text}),
        );
        self.push(
            json!({"type": "queue-operation", "operation": "dequeue", "timestamp": ts,
                         "sessionId": self.session_id}),
        );
        let (uuid, mut v) = self.common(rng, "user", &ts);
        v["promptId"] = json!(rng.uuid());
        v["message"] = json!({"role": "user", "content": text});
        v["permissionMode"] = json!("default");
        let line = self.push(v);
        self.parent = Some(uuid.clone());
        if rng.chance(30) {
            self.push(json!({"type": "file-history-snapshot", "messageId": uuid,
                             "snapshot": {"messageId": uuid, "trackedFileBackups": {}, "timestamp": ts},
                             "isSnapshotUpdate": false}));
        }
        self.turns += 1;
        line
    }

    /// An assistant reply: optional thinking line, the text line, then each
    /// tool call on its own line (same message id) followed by its result.
    /// Returns the line of the text.
    fn assistant(&mut self, rng: &mut Rng, text: &str, tools: &[(&str, Value, String)]) -> u64 {
        let msg_id = format!("msg_01{}", rng.hex(22));
        let req_id = format!("req_011{}", rng.hex(21));
        let ts = self.tick(rng, 3, 40);
        let usage = json!({"input_tokens": 4 + rng.below(900), "output_tokens": 20 + rng.below(700),
                           "cache_read_input_tokens": rng.below(40_000)});
        let line_of = |s: &mut Session, rng: &mut Rng, block: Value| -> (u64, String) {
            let (uuid, mut v) = s.common(rng, "assistant", &ts);
            v["message"] = json!({"model": "claude-sonnet-4-6", "id": msg_id, "type": "message",
                                  "role": "assistant", "content": [block], "stop_reason": null,
                                  "usage": usage});
            v["requestId"] = json!(req_id);
            let line = s.push(v);
            s.parent = Some(uuid.clone());
            (line, uuid)
        };
        if rng.chance(25) {
            let signature = rng.hex(40);
            line_of(
                self,
                rng,
                json!({"type": "thinking", "thinking": "", "signature": signature}),
            );
        }
        let (text_line, _) = line_of(self, rng, json!({"type": "text", "text": text}));
        for (name, input, result) in tools {
            let id = format!("toolu_01{}", rng.hex(22));
            let (_, source) = line_of(
                self,
                rng,
                json!({"type": "tool_use", "id": id, "name": name, "input": input}),
            );
            let ts = self.tick(rng, 1, 20);
            let (uuid, mut v) = self.common(rng, "user", &ts);
            v["message"] = json!({"role": "user", "content": [
                {"tool_use_id": id, "type": "tool_result", "content": result, "is_error": false}]});
            v["toolUseResult"] = json!({"stdout": result, "stderr": "", "interrupted": false,
                                        "isImage": false});
            v["sourceToolAssistantUUID"] = json!(source);
            self.push(v);
            self.parent = Some(uuid);
        }
        self.turns += 1;
        text_line
    }

    fn finish(&mut self, rng: &mut Rng, title: &str) {
        self.push(json!({"type": "ai-title", "aiTitle": title, "sessionId": self.session_id}));
        if let Some(leaf) = self.parent.clone() {
            self.push(
                json!({"type": "last-prompt", "lastPrompt": "", "leafUuid": leaf,
                             "sessionId": self.session_id}),
            );
        }
        let _ = rng;
        std::fs::create_dir_all(self.path.parent().unwrap()).unwrap();
        std::fs::write(&self.path, self.lines.join("\n") + "\n").unwrap();
    }
}

// ------------------------------------------------------------ software work

struct Domain {
    slug: &'static str,
    project: &'static str,
    /// Components, each named the way people say it.
    components: &'static [&'static str],
    files: &'static [&'static str],
    /// (thing, where it moved, how a question names the target)
    moves: &'static [(&'static str, &'static str, &'static str)],
    features: &'static [&'static str],
}

const DOMAINS: &[Domain] = &[
    Domain {
        slug: "priya-ledger",
        project: "ledger",
        components: &[
            "billing worker",
            "invoice renderer",
            "refund service",
            "payment webhook handler",
            "dunning scheduler",
        ],
        files: &[
            "src/billing/worker.rs",
            "src/invoice/render.rs",
            "src/refunds/mod.rs",
            "src/webhooks/stripe.rs",
            "src/dunning/schedule.rs",
            "config/billing.toml",
        ],
        moves: &[
            (
                "billing worker",
                "the new billing-events-v2 queue",
                "the new queue",
            ),
            ("invoice PDFs", "the cold storage bucket", "cold storage"),
        ],
        features: &[
            "proration for mid-cycle upgrades",
            "the tax-inclusive price display",
        ],
    },
    Domain {
        slug: "marco-searchlight",
        project: "searchlight",
        components: &[
            "query parser",
            "ranking service",
            "crawler",
            "autocomplete endpoint",
            "index compactor",
        ],
        files: &[
            "search/parser.py",
            "search/ranking.py",
            "crawler/fetch.py",
            "api/autocomplete.py",
            "index/compact.py",
            "deploy/search.yaml",
        ],
        moves: &[
            ("crawler", "the spot instance pool", "spot instances"),
            ("autocomplete endpoint", "the edge workers", "the edge"),
        ],
        features: &["typo tolerance in search", "the synonyms editor"],
    },
    Domain {
        slug: "lena-fieldnotes",
        project: "fieldnotes",
        components: &[
            "offline sync engine",
            "photo uploader",
            "push notification module",
            "map tile cache",
            "onboarding flow",
        ],
        files: &[
            "app/sync/engine.ts",
            "app/upload/photos.ts",
            "app/push/notify.ts",
            "app/maps/tiles.ts",
            "app/onboarding/Flow.tsx",
            "app.config.ts",
        ],
        moves: &[
            (
                "photo uploader",
                "background fetch tasks",
                "background tasks",
            ),
            (
                "crash reporting",
                "the self-hosted Sentry",
                "self-hosted Sentry",
            ),
        ],
        features: &["dark mode", "shared field notebooks"],
    },
    Domain {
        slug: "omar-pipeline",
        project: "riverflow",
        components: &[
            "ingestion job",
            "dedup stage",
            "warehouse loader",
            "schema registry client",
            "late-event handler",
        ],
        files: &[
            "jobs/ingest.py",
            "jobs/dedup.py",
            "jobs/load_warehouse.py",
            "lib/schema_registry.py",
            "jobs/late_events.py",
            "airflow/dags/daily.py",
        ],
        moves: &[
            (
                "nightly ingestion",
                "the 02:00 UTC slot",
                "two in the morning",
            ),
            (
                "warehouse loader",
                "the Parquet staging tables",
                "Parquet staging",
            ),
        ],
        features: &["exactly-once delivery for clickstream", "the backfill CLI"],
    },
    Domain {
        slug: "sven-gatekeeper",
        project: "gatekeeper",
        components: &[
            "token issuer",
            "session store",
            "password reset flow",
            "SSO connector",
            "audit logger",
        ],
        files: &[
            "internal/token/issuer.go",
            "internal/session/store.go",
            "internal/reset/flow.go",
            "internal/sso/saml.go",
            "internal/audit/log.go",
            "config/gatekeeper.yaml",
        ],
        moves: &[
            (
                "session store",
                "the Redis cluster in eu-west",
                "the Redis cluster",
            ),
            ("signing keys", "the hardware security module", "the HSM"),
        ],
        features: &["passkey login", "per-tenant password policies"],
    },
    Domain {
        slug: "ines-platform",
        project: "platform",
        components: &[
            "ingress controller",
            "node autoscaler",
            "secrets operator",
            "log shipper",
            "backup cronjob",
        ],
        files: &[
            "k8s/ingress.yaml",
            "k8s/autoscaler.yaml",
            "k8s/secrets-operator.yaml",
            "k8s/fluent-bit.yaml",
            "k8s/backup-cronjob.yaml",
            "terraform/cluster.tf",
        ],
        moves: &[
            ("staging cluster", "the arm64 node pool", "arm nodes"),
            ("log shipper", "the new OpenSearch domain", "OpenSearch"),
        ],
        features: &["blue-green deploys for the API", "the cost dashboard"],
    },
    Domain {
        slug: "kenji-dashboard",
        project: "insight",
        components: &[
            "chart renderer",
            "CSV export",
            "filter sidebar",
            "permissions middleware",
            "report scheduler",
        ],
        files: &[
            "web/src/charts/Renderer.tsx",
            "web/src/export/csv.ts",
            "web/src/filters/Sidebar.tsx",
            "server/middleware/permissions.ts",
            "server/reports/scheduler.ts",
            "web/vite.config.ts",
        ],
        moves: &[
            ("report scheduler", "the queue-backed workers", "workers"),
            ("frontend build", "Vite", "Vite"),
        ],
        features: &["saved filter presets", "scheduled PDF reports"],
    },
    Domain {
        slug: "ayla-trainer",
        project: "trainer",
        components: &[
            "data loader",
            "checkpoint writer",
            "evaluation harness",
            "tokenizer service",
            "hyperparameter sweep",
        ],
        files: &[
            "train/data.py",
            "train/checkpoint.py",
            "eval/harness.py",
            "tok/service.py",
            "sweeps/config.yaml",
            "train/main.py",
        ],
        moves: &[
            ("training runs", "the new A100 partition", "the A100s"),
            (
                "checkpoints",
                "object storage with lifecycle rules",
                "object storage",
            ),
        ],
        features: &["mixed-precision training", "the early stopping callback"],
    },
    Domain {
        slug: "tomas-notify",
        project: "herald",
        components: &[
            "email sender",
            "SMS gateway client",
            "digest builder",
            "unsubscribe handler",
            "template renderer",
        ],
        files: &[
            "herald/email/sender.rb",
            "herald/sms/client.rb",
            "herald/digest/builder.rb",
            "herald/unsubscribe.rb",
            "herald/templates/render.rb",
            "config/herald.yml",
        ],
        moves: &[
            ("email sender", "the dedicated IP pool", "dedicated IPs"),
            ("digest builder", "the hourly batch", "hourly batches"),
        ],
        features: &["quiet hours for notifications", "per-channel preferences"],
    },
    Domain {
        slug: "rui-cli",
        project: "shipit",
        components: &[
            "config loader",
            "plugin system",
            "update checker",
            "progress renderer",
            "shell completion generator",
        ],
        files: &[
            "src/config.rs",
            "src/plugins/mod.rs",
            "src/update.rs",
            "src/progress.rs",
            "src/completions.rs",
            "Cargo.toml",
        ],
        moves: &[
            ("release builds", "cross-compiled musl targets", "musl"),
            (
                "plugin registry",
                "a static JSON index on the CDN",
                "a static index",
            ),
        ],
        features: &["the --dry-run flag", "plugin sandboxing"],
    },
    Domain {
        slug: "nadia-arena",
        project: "arena",
        components: &[
            "matchmaking service",
            "game state server",
            "leaderboard",
            "anti-cheat checker",
            "replay recorder",
        ],
        files: &[
            "server/matchmaking.cpp",
            "server/state.cpp",
            "services/leaderboard.go",
            "services/anticheat.go",
            "server/replay.cpp",
            "deploy/fleet.yaml",
        ],
        moves: &[
            ("game servers", "the Frankfurt region", "Frankfurt"),
            (
                "replay files",
                "compressed chunked storage",
                "chunked storage",
            ),
        ],
        features: &["ranked seasons", "spectator mode"],
    },
    Domain {
        slug: "felix-docs",
        project: "handbook",
        components: &[
            "docs site generator",
            "search index builder",
            "link checker",
            "versioned docs switcher",
            "API reference extractor",
        ],
        files: &[
            "site/build.mjs",
            "site/search-index.mjs",
            "tools/linkcheck.mjs",
            "site/versions.json",
            "tools/apiref.mjs",
            "netlify.toml",
        ],
        moves: &[
            ("docs hosting", "the company CDN", "the CDN"),
            ("link checker", "a weekly scheduled run", "weekly runs"),
        ],
        features: &["the copy-code button", "docs feedback widget"],
    },
];

/// (category, options, what each brings)
const CHOICES: &[(&str, &[&str])] = &[
    ("message queue", &["NATS", "RabbitMQ", "Kafka", "SQS"]),
    ("HTTP client", &["reqwest", "ureq", "hyper", "httpx"]),
    (
        "feature flag service",
        &["Unleash", "Flagsmith", "LaunchDarkly"],
    ),
    ("cache", &["Redis", "Memcached", "an in-process LRU"]),
    ("serialization format", &["protobuf", "MessagePack", "CBOR"]),
    ("retry library", &["backoff", "tenacity", "retry-axios"]),
    ("logging library", &["tracing", "structlog", "zap", "pino"]),
    ("job scheduler", &["Temporal", "Sidekiq", "Celery"]),
    ("charting library", &["ECharts", "Recharts", "uPlot"]),
    ("database driver", &["sqlx", "asyncpg", "pgx"]),
];

/// (symptom as logged, symptom as a person asks, cause)
const SYMPTOMS: &[(&str, &str, &str)] = &[
    (
        "intermittent 502 responses",
        "random bad gateway errors",
        "the load balancer's idle timeout of 60 s was shorter than our keep-alive of 75 s",
    ),
    (
        "duplicate rows after retries",
        "the doubled records",
        "the insert was not idempotent: retries reused no request key",
    ),
    (
        "steady heap growth",
        "the memory leak",
        "an unbounded map of per-connection buffers that were never evicted",
    ),
    (
        "slow cold starts",
        "the slow startup",
        "eager loading of every plugin manifest at boot",
    ),
    (
        "deadlocks under load",
        "the lockups we saw under load",
        "two code paths taking the account lock and the ledger lock in opposite order",
    ),
    (
        "timestamps off by one hour",
        "the wrong times",
        "a local-time conversion that ignored daylight saving",
    ),
    (
        "high p99 latency",
        "the latency spikes",
        "a missing index on the tenant_id column forcing a sequential scan",
    ),
    (
        "connection refused errors at peak",
        "the failed connections at peak traffic",
        "a pool of 10 connections shared by 64 workers",
    ),
];

/// (parameter as written, how a question names it, values)
const PARAMS: &[(&str, &str, &[&str])] = &[
    (
        "max_connections",
        "the connection limit",
        &["48", "120", "200", "64"],
    ),
    (
        "request_timeout_ms",
        "the request timeout",
        &["2500", "8000", "15000"],
    ),
    ("batch_size", "the batch size", &["250", "500", "2048"]),
    ("retry_limit", "the number of retries", &["3", "5", "7"]),
    (
        "cache_ttl_seconds",
        "how long entries stay cached",
        &["90", "300", "3600"],
    ),
    (
        "worker_concurrency",
        "the worker concurrency",
        &["6", "12", "24"],
    ),
];

/// (descriptor of the component in a multi-hop question, how the
/// identifying turn states it)
const DESCRIPTORS: &[(&str, &str)] = &[
    (
        "the component that was leaking memory",
        "The {c} is the one leaking memory: its resident size grows by about 40 MB an hour.",
    ),
    (
        "the service that failed the load test",
        "Load test results: the {c} fell over at 1,800 requests per second, everything else held.",
    ),
    (
        "the part of the system the security audit flagged",
        "The security audit flagged the {c}: it logs full request bodies.",
    ),
    (
        "the slowest part of the pipeline",
        "Profiling says the {c} takes 70% of the wall time, by far the slowest step.",
    ),
];

/// (attribute in the question, the turn that sets it)
const ATTRIBUTES: &[(&str, &str)] = &[
    (
        "How many replicas did we give {d}?",
        "Bump the {c} to {n} replicas before Friday.",
    ),
    (
        "Which team took ownership of {d}?",
        "The {team} team is taking over the {c} from next sprint.",
    ),
    (
        "What memory limit did we set for {d}?",
        "I set the memory limit of the {c} to {n}00 MiB in the manifest.",
    ),
];

const TEAMS: &[&str] = &["payments", "platform", "growth", "data", "mobile", "core"];
const COLLEAGUES: &[&str] = &[
    "Grace", "Tariq", "Mei", "Jonas", "Amara", "Dmitri", "Lucia", "Kwame", "Hana", "Pavel",
];

/// Filler a developer types.
const DEV_PROMPTS: &[&str] = &[
    "Can you look at {file}? Something in the {c} feels off.",
    "Run the tests for the {c} again.",
    "What does the main loop in {file} do?",
    "OK, commit that with a short message.",
    "Let's clean up the logging in the {c}.",
    "Add a unit test for the edge case we just hit.",
    "Why is clippy complaining about {file}?",
    "Can you explain the retry logic in the {c}?",
    "Please rename the helper in {file} to something clearer.",
    "Check the CI output for the last push.",
    "Is the {c} covered by the integration tests?",
    "Show me where the {c} reads its configuration.",
    "That looks wrong, the {c} should not block on I/O there.",
    "Let's add metrics around the {c}.",
    "Write a short summary of what we changed today.",
    "Revert the last change to {file}, I want to try another approach.",
    "Open a draft pull request for this.",
    "How long does the {c} take to start now?",
];

/// Filler the assistant writes (before or without tool calls).
const DEV_REPLIES: &[&str] = &[
    "Let me read {file} first.",
    "I'll run the test suite for the {c}.",
    "The {c} reads its settings once at startup and caches them.",
    "Done. I updated {file} and the tests pass.",
    "The retry loop in the {c} uses exponential backoff capped at 30 seconds.",
    "I added a test that covers the empty input case.",
    "Clippy flags a needless clone in {file}; I removed it.",
    "Committed as a small change with a descriptive message.",
    "The {c} is covered by two integration tests, but neither exercises the error path.",
    "I renamed the helper and updated its three call sites.",
    "CI is green on the last push, the lint job took four minutes.",
    "There is a blocking call in the {c}; I moved it onto the blocking pool.",
    "I added counters for requests and failures in the {c}.",
    "Today we tidied the {c}, added tests and fixed a lint warning.",
    "Reverted. {file} is back to the previous version.",
    "The draft pull request is open; CI is running.",
    "Startup of the {c} takes about 1.2 seconds on my machine.",
];

const TEST_OUTPUTS: &[&str] = &[
    "running 42 tests\ntest result: ok. 42 passed; 0 failed; 0 ignored",
    "===== 118 passed, 2 skipped in 9.41s =====",
    "PASS  src/__tests__/flow.test.ts (3.2 s)\nTests: 31 passed, 31 total",
    "ok  \tinternal/session\t0.412s\nok  \tinternal/token\t0.201s",
    "FAILED tests/test_retry.py::test_backoff_cap - AssertionError: 31.0 != 30.0\n1 failed, 77 passed",
];

// ------------------------------------------------------------- personal chats

struct Pair {
    slug: &'static str,
    a: &'static str,
    b: &'static str,
    /// Turns start with "Name: ".
    prefixed: bool,
}

const PAIRS: &[Pair] = &[
    Pair {
        slug: "maya-jonas",
        a: "Maya",
        b: "Jonas",
        prefixed: true,
    },
    Pair {
        slug: "ruth-kofi",
        a: "Ruth",
        b: "Kofi",
        prefixed: false,
    },
    Pair {
        slug: "elif-sam",
        a: "Elif",
        b: "Sam",
        prefixed: true,
    },
    Pair {
        slug: "bea-arjun",
        a: "Bea",
        b: "Arjun",
        prefixed: false,
    },
    Pair {
        slug: "noor-felipe",
        a: "Noor",
        b: "Felipe",
        prefixed: true,
    },
    Pair {
        slug: "clara-theo",
        a: "Clara",
        b: "Theo",
        prefixed: false,
    },
    Pair {
        slug: "iris-malik",
        a: "Iris",
        b: "Malik",
        prefixed: true,
    },
    Pair {
        slug: "greta-yusuf",
        a: "Greta",
        b: "Yusuf",
        prefixed: false,
    },
    Pair {
        slug: "lotte-diego",
        a: "Lotte",
        b: "Diego",
        prefixed: true,
    },
    Pair {
        slug: "hanna-obi",
        a: "Hanna",
        b: "Obi",
        prefixed: false,
    },
    Pair {
        slug: "zara-leon",
        a: "Zara",
        b: "Leon",
        prefixed: true,
    },
    Pair {
        slug: "mira-anton",
        a: "Mira",
        b: "Anton",
        prefixed: false,
    },
];

const PETS: &[(&str, &[&str])] = &[
    ("puppy", &["Biscuit", "Pepper", "Juno"]),
    ("kitten", &["Miso", "Tofu", "Nori"]),
    ("rabbit", &["Clover", "Hazel"]),
    ("parrot", &["Kiwi", "Mango"]),
];
const HOBBIES: &[(&str, &str)] = &[
    ("pottery", "wheel-throwing"),
    ("cello", "music"),
    ("climbing", "bouldering"),
    ("Spanish", "language"),
    ("woodworking", "carpentry"),
    ("salsa", "dance"),
    ("watercolour painting", "painting"),
    ("sourdough baking", "bread"),
];
const PLACES: &[&str] = &[
    "Lisbon",
    "Kyoto",
    "Oaxaca",
    "Tromsø",
    "Marrakesh",
    "Vancouver",
    "Tbilisi",
    "Hoi An",
    "Edinburgh",
    "Cape Town",
];
const JOBS: &[&str] = &[
    "nurse",
    "architect",
    "teacher",
    "sound engineer",
    "vet",
    "pilot",
    "chef",
];
const BOOKS: &[&str] = &[
    "a novel about a lighthouse keeper",
    "a history of the Silk Road",
    "a memoir by a mountain guide",
    "a book on urban beekeeping",
    "a collection of short stories set in Lagos",
];
const RACES: &[&str] = &[
    "half marathon",
    "10K trail race",
    "sprint triathlon",
    "100 km cycling sportive",
];
const COMPANIES: &[&str] = &[
    "a solar startup",
    "the city library",
    "a design studio",
    "a children's hospital",
    "a logistics firm",
];

const CHAT_OPENERS: &[&str] = &[
    "Hey {other}! How was your week?",
    "Hi {other}, long time no talk. What's new?",
    "Good morning {other}! Did you sleep at all with that storm?",
    "{other}! I have news, but first, how are you?",
];
const CHAT_FILLER: &[&str] = &[
    "That sounds lovely, I'm really happy for you.",
    "Work has been busy, lots of meetings and not much else.",
    "The weather here has been grey all week, I miss the sun.",
    "I tried a new recipe yesterday, a lentil soup with too much cumin.",
    "Honestly I just want a quiet weekend at home.",
    "How is your family doing?",
    "We watched a documentary about octopuses last night, fascinating.",
    "I've been going to bed earlier and it helps a lot.",
    "My neighbour keeps practising the trumpet at 7 am.",
    "Haha, that is so typical of you.",
    "Did you ever finish that puzzle with the 2,000 pieces?",
    "I need to plan a holiday, I haven't had one in ages.",
    "We should cook together again soon.",
    "Thanks for listening, it really helps to talk about it.",
    "The garden finally has tomatoes, small but tasty.",
    "I'm thinking about taking a class, not sure what yet.",
    "That reminds me, I still owe you a book.",
    "How did the appointment go?",
    "Oh no, I hope it gets better soon.",
    "Let's catch up again next week, same time?",
];

// ---------------------------------------------------------------- the set

/// Writes the conversations under `transcripts` and the notes under
/// `workspace`, and returns the questions.
pub fn build(transcripts: &Path, workspace: &Path) -> MemorySet {
    let mut rng = Rng(0x5EED_0013);
    let mut questions = Vec::new();
    let mut sessions = 0;
    let mut turns = 0;
    let mut n = 0;
    for (i, d) in DOMAINS.iter().enumerate() {
        let (qs, s, t) = software_conversation(&mut rng, d, i, transcripts);
        questions.extend(qs.into_iter().map(|q| with_split(q, n)));
        sessions += s;
        turns += t;
        n += 1;
        if let Some(p) = PAIRS.get(i) {
            let (qs, s, t) = chat_conversation(&mut rng, p, i, transcripts);
            questions.extend(qs.into_iter().map(|q| with_split(q, n)));
            sessions += s;
            turns += t;
            n += 1;
        }
    }
    let (note_qs, notes) = super::memory_notes::build(workspace);
    questions.extend(note_qs);
    for (i, q) in questions.iter_mut().enumerate() {
        q.id = format!("q{i:03}-{}", q.kind.as_str());
    }
    MemorySet {
        questions,
        conversations: n,
        sessions,
        turns,
        notes,
    }
}

fn with_split(mut q: Question, conversation_no: usize) -> Question {
    q.held_out = !conversation_no.is_multiple_of(2);
    q
}

/// A conversation's sessions: where each starts (seconds), and its writer.
fn open_sessions(
    rng: &mut Rng,
    transcripts: &Path,
    slug: &str,
    cwd: &str,
    count: usize,
) -> Vec<Session> {
    // Conversations start between January and June 2026.
    let mut clock = 1_767_225_600 + rng.below(180) as i64 * 86_400 + 8 * 3600;
    let mut out = Vec::new();
    for _ in 0..count {
        let session_id = rng.uuid();
        let dir = folder(slug);
        out.push(Session {
            uri: format!("cc://{dir}/{session_id}.jsonl"),
            path: transcripts.join(&dir).join(format!("{session_id}.jsonl")),
            session_id,
            cwd: cwd.to_string(),
            lines: Vec::new(),
            clock: clock + rng.below(10 * 3600) as i64,
            parent: None,
            turns: 0,
        });
        clock += (2 + rng.below(19)) as i64 * 86_400;
    }
    out
}

/// A planted fact: which session, roughly where (0..100), and the turn.
struct Plant {
    session: usize,
    position: usize,
    speaker: Speaker,
    text: String,
    tools: Vec<(&'static str, Value, String)>,
    /// (question index, evidence?) this turn answers.
    answers: Vec<usize>,
}

#[derive(Clone, Copy, PartialEq)]
enum Speaker {
    /// The user side (the developer, or person A).
    A,
    /// The assistant side (Claude, or person B).
    B,
}

fn software_conversation(
    rng: &mut Rng,
    d: &Domain,
    index: usize,
    transcripts: &Path,
) -> (Vec<Question>, usize, usize) {
    let n_sessions = rng.range(8, 12);
    let cwd = format!("/home/{}/{}", d.slug.split('-').next().unwrap(), d.project);
    let mut sessions = open_sessions(rng, transcripts, d.slug, &cwd, n_sessions);
    let conversation = folder(d.slug);
    let mut plants: Vec<Plant> = Vec::new();
    let mut qs: Vec<Question> = Vec::new();
    let mut comps: Vec<usize> = (0..d.components.len()).collect();
    rng.shuffle(&mut comps);
    let comp = |i: usize| d.components[comps[i % comps.len()]];
    let question = |qs: &mut Vec<Question>, text: String, kind: Kind| -> usize {
        qs.push(Question {
            id: String::new(),
            text,
            kind,
            conversation: conversation.clone(),
            evidence: Vec::new(),
            relevant: Vec::new(),
            held_out: false,
        });
        qs.len() - 1
    };
    let colleague = |rng: &mut Rng| *rng.pick(COLLEAGUES);

    // 1. Two decisions (single fact).
    let mut cats: Vec<usize> = (0..CHOICES.len()).collect();
    rng.shuffle(&mut cats);
    for k in 0..2 {
        let (cat, options) = CHOICES[cats[k]];
        let c = comp(k);
        let a = options[rng.below(options.len())];
        let b = options.iter().find(|o| **o != a).unwrap();
        let s = rng.below(n_sessions);
        let ask = *rng.pick(&[
            "Which {cat} did we pick for the {c}?",
            "What did we end up choosing as the {cat} for the {c}?",
            "For the {c}, which {cat} did we settle on?",
        ]);
        let qi = question(
            &mut qs,
            fill(ask, &[("cat", cat), ("c", c)]),
            Kind::SingleFact,
        );
        plants.push(Plant {
            session: s,
            position: 20,
            speaker: Speaker::A,
            text: fill(
                "For the {c}, should we use {a} or {b} as the {cat}? I keep going back and forth.",
                &[("c", c), ("a", a), ("b", b), ("cat", cat)],
            ),
            tools: vec![],
            answers: vec![],
        });
        plants.push(Plant {
            session: s,
            position: 25,
            speaker: Speaker::B,
            text: fill(
                "Both would work as the {cat}. {a} is simpler to operate; {b} has more features we may never use. It depends on how much load the {c} really sees.",
                &[("c", c), ("a", a), ("b", b), ("cat", cat)],
            ),
            tools: vec![],
            answers: vec![],
        });
        let decided = *rng.pick(&[
            "Let's go with {a}. {b} is overkill for what the {c} does.",
            "OK, decision made: {a} for the {c}, we can revisit next quarter.",
            "I talked to the team and we'll use {a}; it fits the {c} better.",
        ]);
        plants.push(Plant {
            session: s,
            position: 45 + rng.below(30),
            speaker: Speaker::A,
            text: fill(decided, &[("c", c), ("a", a), ("b", b)]),
            tools: vec![],
            answers: vec![qi],
        });
    }

    // 2. A root cause (single fact), found with a tool call.
    let (logged, asked, cause) = *rng.pick(SYMPTOMS);
    let c = comp(2);
    let file = *rng.pick(d.files);
    let qi = question(
        &mut qs,
        fill(
            *rng.pick(&[
                "What was causing {asked} in the {c}?",
                "Why did the {c} have {asked}?",
                "What did we find was behind {asked}?",
            ]),
            &[("asked", asked), ("c", c)],
        ),
        Kind::SingleFact,
    );
    let s = rng.below(n_sessions);
    plants.push(Plant {
        session: s,
        position: 15,
        speaker: Speaker::A,
        text: fill(
            "We're seeing {logged} from the {c} again. Can you dig into it?",
            &[("logged", logged), ("c", c)],
        ),
        tools: vec![],
        answers: vec![],
    });
    plants.push(Plant {
        session: s,
        position: 50,
        speaker: Speaker::B,
        text: fill(
            "Found it. The root cause is {cause}. I'll prepare a fix in {file}.",
            &[("cause", cause), ("file", file)],
        ),
        tools: vec![(
            "Grep",
            json!({"pattern": "lock|pool|timeout", "path": file}),
            format!(
                "{file}:88:    let guard = state.lock().await;\n{file}:131:    // TODO: bound this"
            ),
        )],
        answers: vec![qi],
    });

    // 3. A configuration value (single fact), set with an edit.
    let (param, param_q, values) = *rng.pick(PARAMS);
    let value = *rng.pick(values);
    let config = d.files[d.files.len() - 1];
    let qi = question(
        &mut qs,
        fill(
            *rng.pick(&[
                "What did we set {pq} to for {project}?",
                "What value did we give {pq} in the {project} config?",
            ]),
            &[("pq", param_q), ("project", d.project)],
        ),
        Kind::SingleFact,
    );
    plants.push(Plant {
        session: rng.below(n_sessions),
        position: rng.range(30, 80),
        speaker: Speaker::B,
        text: fill(
            "I changed {param} to {value} in {config}; the old value was too conservative.",
            &[("param", param), ("value", value), ("config", config)],
        ),
        tools: vec![(
            "Edit",
            json!({"file_path": format!("{cwd}/{config}"), "old_string": format!("{param} = 10"),
                   "new_string": format!("{param} = {value}")}),
            format!("The file {cwd}/{config} has been updated."),
        )],
        answers: vec![qi],
    });

    // 4. Two moves (temporal: "when did we ...").
    for (k, (thing, target, short)) in d.moves.iter().enumerate() {
        let qi = question(
            &mut qs,
            fill(
                if k == 0 {
                    "When did we move the {thing} to {short}?"
                } else {
                    "When was the {thing} switched over to {short}?"
                },
                &[("thing", thing), ("short", short)],
            ),
            Kind::Temporal,
        );
        let s = rng.below(n_sessions);
        plants.push(Plant {
            session: s,
            position: rng.range(10, 90),
            speaker: if rng.chance(50) { Speaker::A } else { Speaker::B },
            text: fill(
                *rng.pick(&[
                    "The {thing} now runs on {target}; I cut it over this morning and watched it for an hour.",
                    "Cut-over done: the {thing} is on {target} as of today.",
                ]),
                &[("thing", thing), ("target", target)],
            ),
            tools: vec![],
            answers: vec![qi],
        });
        // a distractor that talks about the plan, in another session
        plants.push(Plant {
            session: (s + 1 + rng.below(n_sessions - 1)) % n_sessions,
            position: rng.range(10, 90),
            speaker: Speaker::A,
            text: fill(
                "Remind me what is left before the {thing} can go anywhere else.",
                &[("thing", thing)],
            ),
            tools: vec![],
            answers: vec![],
        });
    }

    // 5. Which came first (temporal, two turns in two sessions).
    let merger = colleague(rng);
    let refactored = comp(3);
    let feature = *rng.pick(d.features);
    let (s1, s2) = two_sessions(rng, n_sessions);
    let qi = question(
        &mut qs,
        fill(
            "Which happened first: {p} merging the {c} refactor, or shipping {f}?",
            &[("p", merger), ("c", refactored), ("f", feature)],
        ),
        Kind::Temporal,
    );
    plants.push(Plant {
        session: s1,
        position: rng.range(10, 90),
        speaker: Speaker::A,
        text: fill(
            "{p} merged the {c} refactor last night, so rebase before you touch it.",
            &[("p", merger), ("c", refactored)],
        ),
        tools: vec![],
        answers: vec![qi],
    });
    plants.push(Plant {
        session: s2,
        position: rng.range(10, 90),
        speaker: Speaker::A,
        text: fill(
            "We shipped {f} to production today. Nice work.",
            &[("f", feature)],
        ),
        tools: vec![],
        answers: vec![qi],
    });

    // 6. Multi-hop: a component identified in one session, changed in another.
    for k in 0..2 {
        let (descriptor, identifying) = DESCRIPTORS[(index + k) % DESCRIPTORS.len()];
        let (attr_q, attr_turn) = ATTRIBUTES[(index + 2 * k) % ATTRIBUTES.len()];
        let c = comp(4 + k);
        let nrep = (3 + rng.below(7)).to_string();
        let team = *rng.pick(TEAMS);
        let (s1, s2) = two_sessions(rng, n_sessions);
        let qi = question(
            &mut qs,
            format!("In {}: {}", d.project, fill(attr_q, &[("d", descriptor)])),
            Kind::MultiHop,
        );
        plants.push(Plant {
            session: s1,
            position: rng.range(10, 90),
            speaker: Speaker::B,
            text: fill(identifying, &[("c", c)]),
            tools: vec![(
                "Bash",
                json!({"command": "./scripts/profile.sh --top 5", "description": "Profile the services"}),
                "service            cpu%   rss\nworker              31   412M\napi                 12   180M".to_string(),
            )],
            answers: vec![qi],
        });
        plants.push(Plant {
            session: s2,
            position: rng.range(10, 90),
            speaker: Speaker::A,
            text: fill(attr_turn, &[("c", c), ("n", &nrep), ("team", team)]),
            tools: vec![],
            answers: vec![qi],
        });
    }

    // 7. Who (single fact).
    let reviewer = colleague(rng);
    let c = comp(1);
    let qi = question(
        &mut qs,
        fill("Who reviewed the {c} changes?", &[("c", c)]),
        Kind::SingleFact,
    );
    plants.push(Plant {
        session: rng.below(n_sessions),
        position: rng.range(50, 95),
        speaker: Speaker::A,
        text: fill(
            "{p} went through the {c} changes line by line and approved them.",
            &[("p", reviewer), ("c", c)],
        ),
        tools: vec![],
        answers: vec![qi],
    });

    // 7b. Who is on call (single fact).
    let on_call = colleague(rng);
    let c = comp(2);
    let qi = question(
        &mut qs,
        fill(
            "Who is on call for the {c} in {project}?",
            &[("c", c), ("project", d.project)],
        ),
        Kind::SingleFact,
    );
    plants.push(Plant {
        session: rng.below(n_sessions),
        position: rng.range(5, 95),
        speaker: Speaker::A,
        text: fill(
            "Heads up: {p} carries the pager for the {c} this month, ping them before deploying it.",
            &[("p", on_call), ("c", c)],
        ),
        tools: vec![],
        answers: vec![qi],
    });

    // 8. Questions nothing answers (names and words still overlap).
    question(
        &mut qs,
        fill(
            "Who wrote the runbook for the {c} in {project}?",
            &[("c", comp(3)), ("project", d.project)],
        ),
        Kind::NoAnswer,
    );
    let unused_cat = CHOICES[cats[5]].0;
    question(
        &mut qs,
        fill(
            "Which {cat} did we choose for the {c}?",
            &[("cat", unused_cat), ("c", comp(4))],
        ),
        Kind::NoAnswer,
    );
    question(
        &mut qs,
        fill(
            "When did we move the {c} to the new data centre?",
            &[("c", comp(0))],
        ),
        Kind::NoAnswer,
    );

    let (s, t) = write_sessions(
        rng,
        &mut sessions,
        plants,
        &mut qs,
        |rng, s, _| software_filler(rng, d, s),
        |k| format!("{} work, part {}", d.project, k + 1),
        Speaker::A,
        None,
    );
    (qs, s, t)
}

fn two_sessions(rng: &mut Rng, n: usize) -> (usize, usize) {
    let a = rng.below(n - 1);
    let b = a + 1 + rng.below(n - a - 1);
    (a, b)
}

/// A filler exchange of software work: a prompt, and a reply with maybe a tool.
fn software_filler(rng: &mut Rng, d: &Domain, s: &mut Session) -> usize {
    let c = *rng.pick(d.components);
    let file = *rng.pick(d.files);
    let vars = [("c", c), ("file", file)];
    let prompt = fill(*rng.pick(DEV_PROMPTS), &vars);
    s.user(rng, &prompt);
    let reply = fill(*rng.pick(DEV_REPLIES), &vars);
    let tools: Vec<(&str, Value, String)> = match rng.below(4) {
        0 => vec![(
            "Read",
            json!({"file_path": format!("{}/{file}", s.cwd)}),
            format!(
                "     1\t// {c}\n     2\tuse std::time::Duration;\n     3\t\n     4\tpub fn run(cfg: &Config) -> Result<()> {{\n     5\t    let pool = Pool::new(cfg.max_connections);\n     6\t    loop {{ tick(&pool)?; }}\n     7\t}}"
            ),
        )],
        1 => vec![(
            "Bash",
            json!({"command": "cargo test --quiet", "description": "Run the tests"}),
            rng.pick(TEST_OUTPUTS).to_string(),
        )],
        2 => vec![(
            "Grep",
            json!({"pattern": "retry", "path": "."}),
            format!("{file}:12: retry with backoff\n{file}:40: let retries = cfg.retry_limit;"),
        )],
        _ => vec![],
    };
    s.assistant(rng, &reply, &tools);
    2
}

fn chat_conversation(
    rng: &mut Rng,
    p: &Pair,
    index: usize,
    transcripts: &Path,
) -> (Vec<Question>, usize, usize) {
    let n_sessions = rng.range(8, 12);
    let cwd = format!("/home/{}/chat", p.slug);
    let mut sessions = open_sessions(rng, transcripts, p.slug, &cwd, n_sessions);
    let conversation = folder(p.slug);
    let mut plants: Vec<Plant> = Vec::new();
    let mut qs: Vec<Question> = Vec::new();
    let question = |qs: &mut Vec<Question>, text: String, kind: Kind| -> usize {
        qs.push(Question {
            id: String::new(),
            text,
            kind,
            conversation: conversation.clone(),
            evidence: Vec::new(),
            relevant: Vec::new(),
            held_out: false,
        });
        qs.len() - 1
    };
    let (a, b) = (p.a, p.b);
    let who = |sp: Speaker| if sp == Speaker::A { a } else { b };
    let other = |sp: Speaker| {
        if sp == Speaker::A {
            Speaker::B
        } else {
            Speaker::A
        }
    };
    let first = if index.is_multiple_of(2) {
        Speaker::A
    } else {
        Speaker::B
    };

    // pet (single fact), with a no-answer twin about the other person
    let (pet, names) = PETS[index % PETS.len()];
    let pet_name = *rng.pick(names);
    let owner = first;
    let qi = question(
        &mut qs,
        fill(
            "What did {x} name the new {pet}?",
            &[("x", who(owner)), ("pet", pet)],
        ),
        Kind::SingleFact,
    );
    plants.push(Plant {
        session: rng.below(n_sessions),
        position: rng.range(20, 80),
        speaker: owner,
        text: fill(
            "We finally adopted a {pet} last weekend! We called her {name}, she's tiny and already runs the house.",
            &[("pet", pet), ("name", pet_name)],
        ),
        tools: vec![],
        answers: vec![qi],
    });
    question(
        &mut qs,
        fill(
            "What is the name of {x}'s {pet}?",
            &[("x", who(other(owner))), ("pet", pet)],
        ),
        Kind::NoAnswer,
    );

    // hobby (single fact, asked in other words)
    let (hobby, kind_word) = HOBBIES[(index * 3) % HOBBIES.len()];
    let learner = other(first);
    let qi = question(
        &mut qs,
        fill(
            "What kind of {k} classes did {x} sign up for?",
            &[("k", kind_word), ("x", who(learner))],
        ),
        Kind::SingleFact,
    );
    plants.push(Plant {
        session: rng.below(n_sessions),
        position: rng.range(20, 80),
        speaker: learner,
        text: fill(
            "Guess what, I signed up for {hobby} lessons on Thursday evenings. First one was a mess but I loved it.",
            &[("hobby", hobby)],
        ),
        tools: vec![],
        answers: vec![qi],
    });

    // trip (temporal)
    let place = PLACES[index % PLACES.len()];
    let traveller = first;
    let qi = question(
        &mut qs,
        fill(
            "When did {x} go to {p}?",
            &[("x", who(traveller)), ("p", place)],
        ),
        Kind::Temporal,
    );
    plants.push(Plant {
        session: rng.below(n_sessions),
        position: rng.range(10, 60),
        speaker: traveller,
        text: fill(
            "I just got back from {p} yesterday, still jet-lagged. The food alone was worth the trip.",
            &[("p", place)],
        ),
        tools: vec![],
        answers: vec![qi],
    });

    // race (temporal)
    let race = RACES[index % RACES.len()];
    let runner = other(first);
    let qi = question(
        &mut qs,
        fill(
            "When did {x} complete the {r}?",
            &[("x", who(runner)), ("r", race)],
        ),
        Kind::Temporal,
    );
    plants.push(Plant {
        session: rng.below(n_sessions),
        position: rng.range(20, 80),
        speaker: runner,
        text: fill(
            "I did it! Finished my first {r} this morning, legs are jelly but I'm so proud.",
            &[("r", race)],
        ),
        tools: vec![],
        answers: vec![qi],
    });

    // sibling's city (multi-hop across sessions)
    let city = PLACES[(index + 5) % PLACES.len()];
    let job = JOBS[index % JOBS.len()];
    let sib = *rng.pick(&["sister", "brother", "cousin"]);
    let visitor = first;
    let (s1, s2) = two_sessions(rng, n_sessions);
    let qi = question(
        &mut qs,
        fill(
            "Which city is {x} flying to in order to see family?",
            &[("x", who(visitor))],
        ),
        Kind::MultiHop,
    );
    plants.push(Plant {
        session: s1,
        position: rng.range(20, 80),
        speaker: visitor,
        text: fill(
            "My {sib} works as a {job} in {city} now, she moved there in spring.",
            &[("sib", sib), ("job", job), ("city", city)],
        ),
        tools: vec![],
        answers: vec![qi],
    });
    plants.push(Plant {
        session: s2,
        position: rng.range(20, 80),
        speaker: visitor,
        text: fill(
            "I booked flights to see my {sib} next month, can't wait.",
            &[("sib", sib)],
        ),
        tools: vec![],
        answers: vec![qi],
    });
    // the sibling's job (single fact)
    let qi2 = question(
        &mut qs,
        fill(
            "What does {x}'s {sib} do for a living?",
            &[("x", who(visitor)), ("sib", sib)],
        ),
        Kind::SingleFact,
    );
    plants.iter_mut().rev().nth(1).unwrap().answers.push(qi2);

    // book (single fact)
    let book = BOOKS[index % BOOKS.len()];
    let reader = other(first);
    let qi = question(
        &mut qs,
        fill("What was {x} reading?", &[("x", who(reader))]),
        Kind::SingleFact,
    );
    plants.push(Plant {
        session: rng.below(n_sessions),
        position: rng.range(20, 80),
        speaker: reader,
        text: fill(
            "I can't put down {book}, I read it on the bus every day.",
            &[("book", book)],
        ),
        tools: vec![],
        answers: vec![qi],
    });

    // new job, then moving house (temporal order; multi-hop)
    let company = COMPANIES[index % COMPANIES.len()];
    let (s1, s2) = two_sessions(rng, n_sessions);
    let qi = question(
        &mut qs,
        fill(
            "Did {x} start working at {co} before or after moving into the new apartment?",
            &[("x", who(first)), ("co", company)],
        ),
        Kind::Temporal,
    );
    let (first_event, second_event) = if rng.chance(50) {
        (
            fill(
                "First week at {co} done! Everyone is kind, the coffee is terrible.",
                &[("co", company)],
            ),
            "We got the keys to the new apartment today, boxes everywhere.".to_string(),
        )
    } else {
        (
            "We got the keys to the new apartment today, boxes everywhere.".to_string(),
            fill(
                "First week at {co} done! Everyone is kind, the coffee is terrible.",
                &[("co", company)],
            ),
        )
    };
    for (s, text) in [(s1, first_event), (s2, second_event)] {
        plants.push(Plant {
            session: s,
            position: rng.range(20, 80),
            speaker: first,
            text,
            tools: vec![],
            answers: vec![qi],
        });
    }
    // what helped with the move (multi-hop: the helper named in one session,
    // the thing they did in another)
    let helper = *rng.pick(&[
        "Uncle Raf",
        "our friend Tess",
        "my old roommate Ben",
        "Grandma Lu",
    ]);
    let gift = *rng.pick(&[
        "a hand-built bookshelf",
        "a lemon tree",
        "a framed map of the city",
        "a cast-iron pan",
    ]);
    let (s1, s2) = two_sessions(rng, n_sessions);
    let qi = question(
        &mut qs,
        fill(
            "What housewarming present did the person who helped {x} move bring?",
            &[("x", who(first))],
        ),
        Kind::MultiHop,
    );
    plants.push(Plant {
        session: s1,
        position: rng.range(20, 80),
        speaker: first,
        text: fill(
            "{h} helped us carry everything up four floors, what a hero.",
            &[("h", helper)],
        ),
        tools: vec![],
        answers: vec![qi],
    });
    plants.push(Plant {
        session: s2,
        position: rng.range(20, 80),
        speaker: first,
        text: fill(
            "{h} came for dinner and brought {g} as a housewarming present.",
            &[("h", helper), ("g", gift)],
        ),
        tools: vec![],
        answers: vec![qi],
    });

    // no-answer questions with overlapping words
    question(
        &mut qs,
        fill(
            "When did {x} run a marathon in {p}?",
            &[("x", who(first)), ("p", place)],
        ),
        Kind::NoAnswer,
    );

    let names = (a, b);
    let (s, t) = write_sessions(
        rng,
        &mut sessions,
        plants,
        &mut qs,
        |rng, s, k| chat_filler(rng, names, k, s, p.prefixed),
        |k| format!("Catching up with {b}, part {}", k + 1),
        Speaker::A,
        Some((a, b, p.prefixed)),
    );
    (qs, s, t)
}

/// A filler exchange between the two people (one turn each side).
fn chat_filler(
    rng: &mut Rng,
    (a, b): (&str, &str),
    k: usize,
    s: &mut Session,
    prefixed: bool,
) -> usize {
    let say = |name: &str, text: &str| {
        if prefixed {
            format!("{name}: {text}")
        } else {
            text.to_string()
        }
    };
    let t1 = if k == 0 {
        fill(*rng.pick(CHAT_OPENERS), &[("other", b)])
    } else {
        rng.pick(CHAT_FILLER).to_string()
    };
    let t1 = say(a, &t1);
    s.user(rng, &t1);
    let t2 = if k == 0 {
        fill(*rng.pick(CHAT_OPENERS), &[("other", a)])
    } else {
        rng.pick(CHAT_FILLER).to_string()
    };
    let t2 = say(b, &t2);
    s.assistant(rng, &t2, &[]);
    2
}

/// Writes every session: filler exchanges with the planted turns placed at
/// their positions; records each planted turn's line as evidence.
#[allow(clippy::too_many_arguments)]
fn write_sessions(
    rng: &mut Rng,
    sessions: &mut [Session],
    mut plants: Vec<Plant>,
    qs: &mut [Question],
    mut filler: impl FnMut(&mut Rng, &mut Session, usize) -> usize,
    title: impl Fn(usize) -> String,
    _first: Speaker,
    chat: Option<(&str, &str, bool)>,
) -> (usize, usize) {
    plants.sort_by_key(|p| (p.session, p.position));
    let mut by_session: BTreeMap<usize, Vec<Plant>> = BTreeMap::new();
    for p in plants {
        by_session.entry(p.session).or_default().push(p);
    }
    let mut turns = 0;
    for (k, s) in sessions.iter_mut().enumerate() {
        let exchanges = rng.range(14, 26);
        let mut planted = by_session
            .remove(&k)
            .unwrap_or_default()
            .into_iter()
            .peekable();
        for e in 0..exchanges {
            filler(rng, s, e);
            let at = (e + 1) * 100 / exchanges;
            while let Some(p) = planted.next_if(|p| p.position <= at) {
                let text = match chat {
                    Some((a, b, true)) => {
                        format!(
                            "{}: {}",
                            if p.speaker == Speaker::A { a } else { b },
                            p.text
                        )
                    }
                    _ => p.text.clone(),
                };
                let line = match p.speaker {
                    Speaker::A => s.user(rng, &text),
                    Speaker::B => s.assistant(rng, &text, &p.tools),
                };
                for qi in &p.answers {
                    qs[*qi].evidence.push(Evidence {
                        uri: s.uri.clone(),
                        line,
                    });
                }
                // a short reaction from the other side keeps turns alternating
                let reaction = *rng.pick(&[
                    "Nice.",
                    "Got it, thanks.",
                    "Oh wow!",
                    "Makes sense.",
                    "Good to know.",
                ]);
                let reaction = match chat {
                    Some((a, b, true)) => {
                        format!(
                            "{}: {reaction}",
                            if p.speaker == Speaker::A { b } else { a }
                        )
                    }
                    _ => reaction.to_string(),
                };
                match p.speaker {
                    Speaker::A => s.assistant(rng, &reaction, &[]),
                    Speaker::B => s.user(rng, &reaction),
                };
            }
        }
        s.finish(rng, &title(k));
        turns += s.turns;
    }
    (sessions.len(), turns)
}
