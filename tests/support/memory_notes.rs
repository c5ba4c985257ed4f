//! The notes half of the long-memory labelled set: 200 short markdown notes
//! in a workspace, and queries of four kinds: keyword (words shared with the
//! note), abbreviation ("k8s" for a note that says Kubernetes, or the
//! reverse), paraphrase (the same meaning in other words) and Chinese.
//! Written for pms; every other query is held out.
#![allow(dead_code)]

use std::path::Path;

use super::memory_set::{Kind, Question};

/// (path, title, body, keyword query, paraphrase query, abbreviation query)
const NOTES: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "engineering/k8s-oom.md",
        "Kubernetes pods killed for memory",
        "The worker pods were OOMKilled every few hours. The JVM heap took 90% of the container limit; we set MaxRAMPercentage to 70 and raised the limit to 2Gi.",
        "pods OOMKilled JVM heap",
        "containers keep dying because they run out of RAM",
        "k8s OOM worker pods",
    ),
    (
        "engineering/postgres-vacuum.md",
        "Postgres autovacuum tuning",
        "The orders table bloated to 40 GB because autovacuum could not keep up. Lowered autovacuum_vacuum_scale_factor to 0.02 for hot tables and raised autovacuum_max_workers to 6.",
        "autovacuum scale factor orders table bloat",
        "the big table kept growing on disk because dead rows were not cleaned up",
        "pg vacuum settings",
    ),
    (
        "engineering/jwt-rotation.md",
        "Refresh token rotation",
        "Access tokens live 15 minutes. Refresh tokens rotate on every use and are stored in an httpOnly cookie; reuse of an old refresh token revokes the whole family.",
        "refresh token rotation httpOnly cookie",
        "how long a login stays valid and what happens when a stolen credential is replayed",
        "auth refresh tokens",
    ),
    (
        "engineering/rate-limits.md",
        "Rate limiting the public API",
        "A token bucket per API key in Redis: 100 requests per minute with bursts of 20. Responses carry Retry-After when the bucket is empty.",
        "token bucket per API key Redis",
        "how we stop one customer from flooding our endpoints",
        "",
    ),
    (
        "engineering/ci-flaky.md",
        "Flaky tests in continuous integration",
        "Integration tests shared one temp folder and collided when run in parallel. Each test now gets its own directory; retries were removed so real failures show.",
        "flaky integration tests shared temp folder",
        "tests that pass or fail at random when run side by side",
        "CI flaky tests",
    ),
    (
        "engineering/pr-review-rules.md",
        "Pull request review rules",
        "Every pull request needs one approval from an owner of the touched code. Keep pull requests under 400 lines; split refactors from behaviour changes.",
        "pull request approval owner 400 lines",
        "how big a change may be before someone looks at it, and who must sign off",
        "PR review policy",
    ),
    (
        "engineering/db-migrations.md",
        "Database migrations without downtime",
        "Add columns as nullable, backfill in batches, then add constraints. Never rename a column in one step: add the new one, dual-write, switch reads, drop the old.",
        "database migrations nullable backfill dual-write",
        "changing table layouts while the app keeps serving traffic",
        "DB schema migration zero downtime",
    ),
    (
        "engineering/redis-stampede.md",
        "Cache stampede protection",
        "When a hot key expired, hundreds of requests recomputed it at once. We added a lock per key and serve the stale copy while one request refreshes it.",
        "cache stampede lock stale copy hot key",
        "many requests rebuilding the same expired value at the same moment",
        "",
    ),
    (
        "engineering/deploy-canary.md",
        "Canary deploys and automatic rollback",
        "New versions take 5% of traffic for 15 minutes. If the error rate doubles compared to the stable version, the rollout stops and rolls back by itself.",
        "canary 5% traffic error rate rollback",
        "sending a little traffic to a new release and undoing it when things break",
        "",
    ),
    (
        "engineering/sqlite-wal.md",
        "SQLite in WAL mode",
        "Readers no longer block the writer since we switched journal_mode to WAL. busy_timeout is 5 seconds; checkpoints run after each batch.",
        "SQLite WAL busy_timeout checkpoint",
        "letting reads happen while the embedded database is being written",
        "",
    ),
    (
        "engineering/graphql-n1.md",
        "N+1 queries in GraphQL resolvers",
        "The projects list issued one query per owner. A DataLoader batches the owner lookups per request, turning 201 queries into 2.",
        "GraphQL DataLoader N+1 resolver",
        "one lookup per item in a list made the page slow; batching fixed it",
        "",
    ),
    (
        "engineering/terraform-state.md",
        "Terraform state locking",
        "Two applies ran at once and corrupted the state file. State now lives in S3 with a DynamoDB lock table; applies only run from CI.",
        "Terraform state S3 DynamoDB lock",
        "two people changing infrastructure at the same time broke our records of what exists",
        "tf state lock",
    ),
    (
        "engineering/dns-ttl.md",
        "DNS TTL before migrations",
        "Lower the TTL of records to 60 seconds a day before moving a service, otherwise resolvers keep the old address for hours.",
        "DNS TTL 60 seconds before moving",
        "why clients kept going to the old server for hours after we switched",
        "",
    ),
    (
        "engineering/docker-layers.md",
        "Smaller Docker images",
        "Multi-stage builds with a distroless final stage cut the image from 1.2 GB to 85 MB. Copy the lockfile first so dependency layers stay cached.",
        "Docker multi-stage distroless image size",
        "making our container downloads much lighter",
        "",
    ),
    (
        "engineering/webhook-idempotency.md",
        "Idempotent webhook handling",
        "Stripe retries webhooks, so each event id is stored before processing; a repeated id is acknowledged and skipped.",
        "Stripe webhook event id idempotent",
        "the payment provider sends the same notification twice and we must not act twice",
        "",
    ),
    (
        "engineering/react-rerenders.md",
        "React re-render storms",
        "The dashboard re-rendered 40 times per keystroke because the context value was a new object each render. useMemo on the value fixed it.",
        "React context useMemo re-render",
        "the page redrew itself far too often while typing",
        "",
    ),
    (
        "engineering/safari-cookies.md",
        "Safari drops third-party cookies",
        "Embedded widgets lost their session in Safari because of ITP. We moved the widget to a first-party subdomain and use the Storage Access API as a fallback.",
        "Safari ITP third-party cookies widget",
        "one browser kept logging people out of the embedded component",
        "",
    ),
    (
        "engineering/env-config.md",
        "Environment configuration",
        "Every setting comes from environment variables with defaults in one config module; production values live in the secrets manager, never in the repository.",
        "environment variables config module secrets manager",
        "where settings and passwords for each deployment are kept",
        "env config prod secrets",
    ),
    (
        "engineering/auth-sso.md",
        "Single sign-on with SAML",
        "Enterprise customers log in through SAML. The assertion consumer checks the signature and the audience; just-in-time provisioning creates the account on first login.",
        "SAML assertion signature just-in-time provisioning",
        "letting big customers use their company login",
        "SSO authn enterprise",
    ),
    (
        "engineering/gh-actions-cache.md",
        "Caching in GitHub Actions",
        "The cargo build took 14 minutes in GitHub Actions. Caching the target folder keyed on the lockfile brought it to 4 minutes.",
        "GitHub Actions cache target lockfile",
        "our automated builds were slow until we kept compiled output between runs",
        "gh actions CI cache",
    ),
    (
        "engineering/ts-strict.md",
        "TypeScript strict mode",
        "Turning on strict in tsconfig found 212 errors, mostly implicit any and possibly undefined values. We fixed them folder by folder behind a lint rule.",
        "TypeScript strict tsconfig implicit any",
        "making the compiler pickier about types across the frontend",
        "ts strict mode",
    ),
    (
        "engineering/python-deps.md",
        "Python dependency pinning",
        "Unpinned transitive dependencies broke the build twice. We now lock with uv and renew the lockfile weekly in a bot pull request.",
        "Python dependencies lockfile uv weekly",
        "builds broke because libraries we did not choose changed under us",
        "py deps lock",
    ),
    (
        "engineering/repo-layout.md",
        "Repository layout",
        "One repository with apps/ and packages/; shared code only in packages/. Each app has its own deploy pipeline triggered by path filters.",
        "repository apps packages path filters",
        "how the code base is organised into folders",
        "monorepo layout",
    ),
    (
        "engineering/msg-queue-choice.md",
        "Choosing a message queue",
        "We picked NATS JetStream over Kafka for the event bus: one binary to run, enough throughput for 20k messages per second, and simple consumer groups.",
        "NATS JetStream Kafka event bus",
        "why we chose this system for passing events between services",
        "msg queue choice",
    ),
    (
        "engineering/devcontainer.md",
        "Development containers",
        "New engineers start with the devcontainer: the toolchain, a local database and seed data in one command. Setup time went from a day to 20 minutes.",
        "devcontainer toolchain seed data setup",
        "getting a new hire's laptop ready to work quickly",
        "dev environment setup",
    ),
    (
        "product/pricing-usage.md",
        "Usage-based pricing for the Team plan",
        "The Team plan moves from per-seat to usage-based pricing: a base fee plus metered projects. Churn risk is highest for small teams with many idle seats.",
        "usage-based pricing Team plan metered",
        "charging customers for what they consume instead of how many people they have",
        "",
    ),
    (
        "product/onboarding.md",
        "Onboarding checklist",
        "New workspaces see a five-step checklist: invite a teammate, connect a data source, build a chart, share it, schedule a report.",
        "onboarding checklist invite teammate data source",
        "the first steps we guide new accounts through",
        "",
    ),
    (
        "product/roadmap-q3.md",
        "Q3 roadmap",
        "Q3 focuses on permissions, audit logs and the mobile viewer. Anything else waits for Q4 planning.",
        "Q3 roadmap permissions audit logs mobile viewer",
        "what we plan to build in the third quarter",
        "",
    ),
    (
        "product/nps-survey.md",
        "NPS survey results",
        "NPS rose from 31 to 44 after the performance work. Detractors mention missing exports; promoters mention speed.",
        "NPS detractors promoters exports",
        "how likely customers are to recommend us, and why",
        "",
    ),
    (
        "growth/activation.md",
        "Activation metric",
        "A workspace counts as activated when it shares a dashboard within 7 days. Activation rose from 22% to 31% after the checklist.",
        "activation shares dashboard within 7 days",
        "how we decide a new sign-up has really started using the product",
        "",
    ),
    (
        "growth/referral.md",
        "Referral experiment",
        "Giving both sides a free month raised referrals by 18%, but referred users retained worse after the free month ended.",
        "referral free month retention",
        "inviting friends for a reward brought people who left sooner",
        "",
    ),
    (
        "growth/seo-pages.md",
        "Programmatic SEO pages",
        "Template pages for each integration brought 12k visits a month; thin pages were deindexed, so every page now has a real example.",
        "programmatic SEO integration pages deindexed",
        "getting found through search engines with a page per integration",
        "",
    ),
    (
        "growth/pricing-page-test.md",
        "Pricing page A/B test",
        "Showing annual prices by default lifted annual plan share from 28% to 41% without hurting conversion.",
        "pricing page annual prices A/B test conversion",
        "defaulting to yearly billing on the plans page",
        "",
    ),
    (
        "competitors/northwind.md",
        "Northwind teardown",
        "Northwind sells row-level permissions as an enterprise add-on and lacks scheduled reports. Their onboarding is a sales call.",
        "Northwind row-level permissions enterprise add-on",
        "what the rival offers big customers for access control",
        "",
    ),
    (
        "competitors/contoso.md",
        "Contoso pricing",
        "Contoso charges per dashboard with a cap of 10 on the starter tier; teams hit the cap within a month.",
        "Contoso per-dashboard pricing cap",
        "the other vendor limits how many boards cheap plans get",
        "",
    ),
    (
        "operations/oncall.md",
        "On-call rotation",
        "Weekly rotation, handover on Monday at 10:00. The secondary takes pages the primary does not acknowledge in 10 minutes.",
        "on-call rotation handover secondary pages",
        "who answers alerts at night and how the duty passes from one person to the next",
        "",
    ),
    (
        "operations/incident-comms.md",
        "Incident communication",
        "Post on the status page within 15 minutes of a customer-facing incident, update every 30 minutes, and write the postmortem within five days.",
        "status page incident update every 30 minutes",
        "how we keep customers informed while something is broken",
        "",
    ),
    (
        "operations/backups.md",
        "Backup and restore drills",
        "Nightly snapshots are kept 35 days. Every quarter we restore one into staging and time it; the last drill took 48 minutes.",
        "backup snapshots restore drill staging",
        "checking that we can really get our data back after a disaster",
        "",
    ),
    (
        "operations/vendor-review.md",
        "Vendor security review",
        "New vendors that touch customer data need a security questionnaire, a DPA and SOC 2 report before a contract is signed.",
        "vendor security questionnaire DPA SOC 2",
        "what a supplier must prove before we let them handle client information",
        "",
    ),
    (
        "research/interviews-admins.md",
        "Interviews with workspace admins",
        "Admins want bulk user management and a log of who changed permissions. Several manage 200+ users through spreadsheets.",
        "admins bulk user management permissions log",
        "what the people running accounts for their company asked us for",
        "",
    ),
    (
        "research/churn-reasons.md",
        "Why customers churn",
        "Exit survey: price (38%), missing integrations (24%), moved to an all-in-one suite (19%).",
        "churn exit survey price integrations",
        "the reasons people give when they cancel",
        "",
    ),
    (
        "writing/style-guide.md",
        "Writing style guide",
        "Use sentence case in headings, active voice, and plain words. Avoid exclamation marks and marketing superlatives.",
        "style guide sentence case active voice",
        "how our texts should sound and be formatted",
        "",
    ),
    (
        "writing/release-notes.md",
        "Release notes format",
        "Release notes lead with what the user can now do, then fixes, then deprecations with dates.",
        "release notes fixes deprecations",
        "how we announce what changed in a new version",
        "",
    ),
    (
        "marketing/webinar.md",
        "Webinar playbook",
        "Announce three weeks ahead, send reminders a day and an hour before, and email the recording within 24 hours.",
        "webinar reminders recording",
        "running an online talk for prospects from announcement to follow-up",
        "",
    ),
    (
        "marketing/newsletter.md",
        "Newsletter subject lines",
        "Subject lines with a number opened 9% better; emoji made no difference. Send on Tuesday mornings.",
        "newsletter subject lines open rate Tuesday",
        "what makes people open our monthly email",
        "",
    ),
    (
        "personal/sourdough.md",
        "Sourdough notes",
        "Feed the starter 1:5:5 the night before. Bulk ferment 5 hours at 24 °C, shape, then retard in the fridge overnight.",
        "sourdough starter bulk ferment",
        "baking bread with wild yeast at home",
        "",
    ),
    (
        "personal/kyoto-trip.md",
        "Kyoto trip ideas",
        "Stay near Gion, visit Fushimi Inari at dawn before the crowds, and book the moss temple weeks in advance.",
        "Kyoto Fushimi Inari Gion",
        "plans for visiting the old Japanese capital",
        "",
    ),
    (
        "engineering/api-versioning.md",
        "API versioning",
        "Versions live in the URL path. A version is supported for 12 months after its successor ships; deprecation headers warn clients six months ahead.",
        "API versioning URL path deprecation headers",
        "how long we keep old interfaces working for integrators",
        "",
    ),
    (
        "engineering/feature-flags.md",
        "Feature flags",
        "Flags live in Unleash. Every flag has an owner and an expiry date; flags older than 90 days are reviewed in the weekly cleanup.",
        "feature flags Unleash owner expiry",
        "switches that turn unfinished work on for some users only",
        "",
    ),
    (
        "engineering/logging-levels.md",
        "Logging levels",
        "Errors page someone, warnings go to a daily digest, info is kept 14 days. Never log tokens or full request bodies.",
        "logging levels errors warnings digest",
        "what each severity of message means and how long we keep it",
        "",
    ),
];

/// Postmortems in one folder: one query should bring back all of them.
const POSTMORTEMS: &[(&str, &str)] = &[
    (
        "2026-01-payments",
        "Card payments failed for 40 minutes after a certificate expired.",
    ),
    (
        "2026-02-search",
        "Search returned empty results after a bad index swap.",
    ),
    (
        "2026-03-login",
        "Logins failed for one region when the session store filled up.",
    ),
    (
        "2026-04-exports",
        "CSV exports timed out for large workspaces after a query change.",
    ),
    (
        "2026-05-email",
        "Emails were delayed four hours because the sending queue stalled.",
    ),
    (
        "2026-06-dns",
        "A DNS change sent API traffic to a retired load balancer.",
    ),
    (
        "2026-07-billing",
        "Invoices were generated twice for annual plans.",
    ),
    (
        "2026-08-uploads",
        "Uploads failed after a storage bucket policy was tightened.",
    ),
];

/// Chinese notes and queries: (path, title, body, query).
const CJK_NOTES: &[(&str, &str, &str, &str)] = &[
    (
        "research/用户访谈-财务.md",
        "财务团队访谈",
        "财务团队希望每月自动导出对账报表，并且能按部门筛选费用。",
        "对账报表导出",
    ),
    (
        "product/权限设计.md",
        "权限设计",
        "管理员可以按项目分配只读或编辑权限，审计日志记录每一次修改。",
        "项目权限审计日志",
    ),
    (
        "engineering/数据库迁移.md",
        "数据库迁移方案",
        "先新增可空字段，再分批回填数据，最后加上约束，整个过程不停机。",
        "数据库迁移不停机",
    ),
    (
        "operations/值班制度.md",
        "值班制度",
        "每周轮换值班，周一上午交接，副值班在十分钟内接手未确认的告警。",
        "值班交接告警",
    ),
    (
        "growth/增长实验.md",
        "增长实验记录",
        "邀请好友送一个月会员，注册量提升百分之十八，但留存下降。",
        "邀请好友留存",
    ),
    (
        "marketing/直播方案.md",
        "直播活动方案",
        "提前三周预告，开播前一天和一小时各提醒一次，结束后发送回放。",
        "直播回放提醒",
    ),
    (
        "writing/写作规范.md",
        "写作规范",
        "标题使用简洁的陈述句，避免感叹号，正文多用主动语态。",
        "写作规范标题",
    ),
    (
        "engineering/缓存击穿.md",
        "缓存击穿处理",
        "热点键过期时大量请求同时重建缓存，我们为每个键加锁并返回旧值。",
        "缓存击穿加锁",
    ),
    (
        "product/定价方案.md",
        "团队版定价",
        "团队版从按席位收费改为按用量收费，小团队流失风险最高。",
        "按用量收费团队版",
    ),
    (
        "research/流失原因.md",
        "客户流失原因",
        "退订调查显示价格占百分之三十八，缺少集成占百分之二十四。",
        "客户流失原因调查",
    ),
    (
        "operations/备份演练.md",
        "备份恢复演练",
        "每季度把一份快照恢复到预发环境并计时，上次演练用了四十八分钟。",
        "备份恢复演练",
    ),
    (
        "engineering/接口限流.md",
        "接口限流",
        "每个密钥使用令牌桶限流，每分钟一百次请求，突发最多二十次。",
        "令牌桶限流",
    ),
    (
        "personal/京都旅行.md",
        "京都旅行计划",
        "住在祇园附近，清晨去伏见稻荷避开人群。",
        "京都伏见稻荷",
    ),
    (
        "engineering/前端性能.md",
        "前端性能优化",
        "仪表盘每次输入都重新渲染四十次，用缓存上下文的值解决了。",
        "仪表盘重新渲染",
    ),
    (
        "product/新手引导.md",
        "新手引导清单",
        "新工作区会看到五步清单：邀请同事、连接数据源、创建图表、分享、定时报告。",
        "新手引导清单",
    ),
    (
        "operations/供应商审核.md",
        "供应商安全审核",
        "接触客户数据的新供应商需要填写安全问卷并提供审计报告。",
        "供应商安全问卷",
    ),
    (
        "engineering/日志级别.md",
        "日志级别",
        "错误会呼叫值班人员，警告进入每日摘要，不要记录令牌。",
        "日志级别警告",
    ),
    (
        "growth/激活指标.md",
        "激活指标",
        "工作区在七天内分享仪表盘即视为激活，激活率从百分之二十二升到三十一。",
        "激活指标定义",
    ),
    (
        "marketing/邮件标题.md",
        "邮件标题测试",
        "带数字的标题打开率高百分之九，表情符号没有影响。",
        "邮件标题打开率",
    ),
    (
        "research/管理员需求.md",
        "管理员需求",
        "管理员希望批量管理用户，并查看谁修改了权限。",
        "批量管理用户",
    ),
];

/// Filler subjects for the notes that answer no query (distractors with
/// the same vocabulary).
const FILLER_TOPICS: &[&str] = &[
    "database",
    "deploy",
    "pricing",
    "onboarding",
    "tokens",
    "cache",
    "tests",
    "pods",
    "release",
    "permissions",
    "reports",
    "survey",
    "queue",
    "webhooks",
    "backups",
    "DNS",
    "logging",
    "dashboard",
    "exports",
    "incident",
];
const FILLER_LINES: &[&str] = &[
    "Discussed {t} with the team; no decision yet, revisit next week.",
    "Open questions about {t}: ownership, cost, and who reviews changes.",
    "Reading list on {t}: two blog posts and an internal doc from last year.",
    "Meeting notes: {t} came up briefly, mostly status updates.",
    "Idea: a small internal demo about {t} for the all-hands.",
    "Someone asked about {t} in the support channel; answered with the docs link.",
    "Weekly log: spent a morning on {t}, the rest on reviews.",
];

/// Writes the notes under `ws` and returns their queries and how many notes.
pub fn build(ws: &Path) -> (Vec<Question>, usize) {
    let mut qs = Vec::new();
    let mut n = 0;
    let write = |path: &str, text: String| {
        let p = ws.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    // split by note: every other note's queries are held out
    let query =
        |qs: &mut Vec<Question>, text: &str, kind: Kind, relevant: Vec<String>, note: usize| {
            if text.is_empty() {
                return;
            }
            let held_out = !note.is_multiple_of(2);
            qs.push(Question {
                id: String::new(),
                text: text.to_string(),
                kind,
                conversation: String::new(),
                evidence: Vec::new(),
                relevant,
                held_out,
            });
        };
    for (path, title, body, kw, para, abbr) in NOTES {
        write(path, format!("# {title}\n\n{body}\n"));
        query(&mut qs, kw, Kind::Keyword, vec![path.to_string()], n);
        query(&mut qs, para, Kind::Paraphrase, vec![path.to_string()], n);
        query(&mut qs, abbr, Kind::Abbreviation, vec![path.to_string()], n);
        n += 1;
    }
    let mut pm = Vec::new();
    for (slug, what) in POSTMORTEMS {
        let path = format!("engineering/postmortems/{slug}.md");
        write(
            &path,
            format!(
                "# Postmortem {slug}\n\n{what} Root cause, timeline and follow-ups below.\n\n## Follow-ups\n- add an alert\n- write a runbook entry\n"
            ),
        );
        n += 1;
        pm.push(path);
    }
    query(
        &mut qs,
        "postmortem follow-ups",
        Kind::Keyword,
        pm.clone(),
        0,
    );
    query(
        &mut qs,
        "write-ups of past outages",
        Kind::Paraphrase,
        pm,
        1,
    );
    for (path, title, body, q) in CJK_NOTES {
        write(path, format!("# {title}\n\n{body}\n"));
        query(&mut qs, q, Kind::Cjk, vec![path.to_string()], n);
        n += 1;
    }
    // distractors up to 200 notes
    let mut i = 0;
    while n < 200 {
        let t = FILLER_TOPICS[i % FILLER_TOPICS.len()];
        let a = FILLER_LINES[i % FILLER_LINES.len()].replace("{t}", t);
        let b = FILLER_LINES[(i * 3 + 1) % FILLER_LINES.len()].replace("{t}", t);
        write(
            &format!("notes/2026-{:02}-{:02}-{t}.md", 1 + i % 12, 1 + i % 28),
            format!("# Notes on {t}\n\n{a}\n{b}\n"),
        );
        n += 1;
        i += 1;
    }
    (qs, n)
}
