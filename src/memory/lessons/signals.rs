//! Learning signals: what in a conversation is worth keeping as a rule, and
//! the words to stage it in. Deterministic patterns, English and Chinese.
//!
//! Two layers:
//!
//! - [`detect`] classifies sentences. Seven kinds:
//!
//!   | kind | what it looks like |
//!   |---|---|
//!   | correction | the agent admits the user corrected it ("You're right", "我搞错了") |
//!   | insight | something understood ("It turns out", "原来") |
//!   | error | a root cause found ("failed because", "问题出在") |
//!   | cognitive-shift | an assumption overturned ("I had assumed … but", "之前以为") |
//!   | method | a better way found ("A simpler approach", "更好的办法") |
//!   | anti-pattern | a thing not to do ("Never …", "不要…") |
//!   | rule | a thing to do, stated as a rule ("Lesson: always …", "From now on, …", "以后…", "记住：…") |
//!
//!   A sentence may also *state a rule* whatever its kind ([`Stated`]): it
//!   carries a label ("Lesson:", "Rule:", "Remember:", "The correct
//!   approach is to", "教训是", "记住"), a time marker ("from now on",
//!   "going forward", "in future", "next time", "以后", "下次") before an
//!   instruction, or starts as one ("Always …", "Never …", "Make sure to …",
//!   "一定要…", "不要再…"). The rule is phrased as the rule: the label, the
//!   time marker, the speaker ("I'll", "we should"), "again" and "再" go;
//!   "don't ever" becomes "never".
//!
//! - [`learnings`] turns one message into what is staged: one item per rule
//!   it states (sentences that restate the same rule, by the lessons'
//!   near-duplicate [`similarity`], are one item, in the words of the most
//!   explicit), with the narrative around it (the apology, the root cause)
//!   kept as its `why`. A reply that states no rule gives at most one item:
//!   its most useful narrative sentence (a method or anti-pattern, then a
//!   root cause, an overturned assumption, an insight, a correction), with
//!   the acknowledgement ("You're right —") removed.
//!
//! The user's own prompts are read too, for rules only: "from now on,
//! never …", "don't ever … again", "remember: …", "以后不要…" from the user
//! are the strongest signal there is. A user's bare "Don't X" or "Make sure
//! X" is an instruction for the task at hand, not a rule, unless it says it
//! lasts ("again", "ever", "再"). Pasted material is not the user speaking:
//! quoted lines and code are skipped, and a long prompt is read only at its
//! start and end ([`PROMPT_WINDOW`]).
//!
//! Precision matters more than recall: every signal costs the user a
//! confirmation, so look-alikes ("Don't worry", "Never mind", "Always happy
//! to help", "以后再说", "下次见") are excluded and questions are never rules.
//! tests/signals_quality.rs measures both on a labelled set.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::{DUPLICATE_SIMILARITY, KeyTerms, similarity_of};

pub use super::statement::stated_rule;
use super::statement::{capitalise, content, is_cjk, lower, opens_with};
use crate::platform::host::text;

pub const KINDS: [&str; 7] = [
    "correction",
    "insight",
    "error",
    "cognitive-shift",
    "method",
    "anti-pattern",
    "rule",
];

/// Whether a staged kind is a rule (what to do or not to do) rather than a
/// narrative (what happened).
pub fn is_rule_kind(kind: &str) -> bool {
    matches!(kind, "rule" | "anti-pattern")
}

/// Who said it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The user, in a prompt.
    User,
    /// The agent, in a reply.
    #[default]
    Assistant,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::User => "user",
            Origin::Assistant => "assistant",
        }
    }
}

/// How a sentence announces its rule; the most explicit wording of a rule
/// said twice is the one staged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Marker {
    /// Starts as an instruction: "Always …", "Never …", "一定要…".
    Bare,
    /// "From now on", "going forward", "next time", "以后", "下次".
    Lasting,
    /// "Lesson:", "Rule:", "Remember:", "The correct approach is to", "教训是", "记住".
    Labelled,
}

/// A rule a sentence states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stated {
    /// The rule, phrased as the rule.
    pub text: String,
    /// "Never …", "Don't …", "不要…".
    pub negative: bool,
    pub marker: Marker,
    /// What the sentence said before the rule ("The job failed because …, so").
    pub lead: Option<String>,
}

/// A signal found in a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub kind: &'static str,
    pub sentence: String,
    /// The rule the sentence states, if it states one.
    pub rule: Option<Stated>,
}

/// A learning to stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Learning {
    pub kind: &'static str,
    /// The rule (or, when none was stated, the narrative sentence).
    pub text: String,
    /// The narrative around the rule: the correction, the root cause.
    pub why: Option<String>,
    pub origin: Origin,
}

/// Most items one assistant reply gives: a reply that states more rules
/// than this is a tutorial or a checklist, not a lesson.
const MAX_RULES_PER_REPLY: usize = 3;

/// Longest `why` kept with a learning, in characters.
const WHY_CHARS: usize = 300;

/// A user prompt longer than this many bytes is read only at its start and
/// end, this many bytes each: the middle of a long prompt is pasted material
/// (a log, a document), not the user talking.
pub const PROMPT_WINDOW: usize = 1500;

struct Pattern {
    kind: &'static str,
    re: Regex,
}

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let p = |kind, re: &str| Pattern {
        kind,
        re: Regex::new(re).expect("signal patterns are valid"),
    };
    vec![
        p(
            "correction",
            r"^(?:you(?:'|’)?re (?:absolutely |quite )?(?:right|correct)(?: —| -|,|\.|!|:|$)|good catch|my (?:mistake|bad|apologies)|(?:ah,? )?that(?:'|’)?s on me|sorry about that|i was wrong|i stand corrected|i made (?:a|an) (?:mistake|error)|i misunderstood|(?:sorry|apologies),? (?:i|that) (?:was|is) (?:wrong|incorrect|mistaken)|thanks for (?:the )?correct)",
        ),
        p(
            "correction",
            r"(你说得对|你是对的|我搞错了|我弄错了|是我的错|我理解错了|纠正得对|我之前(说|写)错了)",
        ),
        p(
            "error",
            r"(root cause|(?:the|this) (?:bug|error|issue|problem|failure|crash|outage) (?:was|is) (?:caused by|due to|in )|was caused by|(?:failed|fails|failing|broke|crashed|crashes) because|the culprit (?:is|was)|the reason (?:it|this|the (?-u:\w)+) (?:broke|failed|crashed|hung|timed out|stopped))",
        ),
        p(
            "error",
            r"(根本原因|问题出在|错误原因|原因是|(失败|报错|崩溃|出错)是因为|导致了?(失败|报错|崩溃))",
        ),
        p(
            "cognitive-shift",
            r"(i (?:had )?(?:assumed|thought|believed|expected) .{0,120}(?:but|however|actually|in fact)|contrary to (?:what i|my)|i was (?:wrong to assume|assuming)|not .{0,50} as i (?:thought|assumed|expected|believed))",
        ),
        p(
            "cognitive-shift",
            r"(之前以为|我以为.{0,40}(其实|实际上|但是?)|本以为.{0,40}(其实|实际上|但是?)|并不是.{0,30}而是)",
        ),
        p(
            "method",
            r"(a (?:much )?(?:better|simpler|faster|cleaner|safer|more reliable) (?:way|approach|method|option)|the trick (?:is|was)|what (?:worked|works) (?:was|is)|the (?:right|correct|proper) (?:way|approach) (?:is|was)|the fix (?:is|was) to|this approach works)",
        ),
        p(
            "method",
            r"(更好的(方法|办法|做法|方式)|更简单的(方法|办法|做法)|技巧是|诀窍是|有效的(方法|做法)是|正确的做法是|解决办法是|(这个|这种)(方法|办法|做法)更(好|稳|快|简单|可靠))",
        ),
        p(
            "insight",
            r"(i (?:just )?(?:realized|realised|noticed that|learned that)|it turns out|turns out that|the key (?:insight|point|lesson) (?:is|here)|lesson learned|the real (?:reason|issue|problem) (?:is|was)|^interesting(?:ly)?[,:])",
        ),
        // 原来 is "it turns out", but 原来的 is "the original"
        p(
            "insight",
            r"(原来[^的]|我意识到|关键在于|真正的(原因|问题)是|学到了)",
        ),
        // "should not" only with a person as its subject: "this should not
        // take long" is no anti-pattern
        p(
            "anti-pattern",
            r"(^(?:(?:next time|in (?:the )?future|going forward|from now on),? )?(?:never|don(?:'|’)?t|do not|avoid) (?-u:\w)|should never (?-u:\w)|(?-u:\b)(?:you|we|one|i) should (?:not|n(?:'|’)t) (?-u:\w)|must (?:never|not) (?-u:\w)|is an anti-?pattern|is (?:a )?bad (?:practice|idea)|it(?:'|’)?s a (?:common )?mistake to)",
        ),
        p(
            "anti-pattern",
            r"(^(以后|下次)?[，,]?(不要|别|切忌|避免|千万不要|禁止)|不应该|不能再|是反模式|是错误的做法)",
        ),
    ]
});

/// Sentences that look like a signal but are not one.
pub(crate) static EXCLUDE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:don(?:'|’)?t|do not|never) (?:worry|hesitate|mind|fear|forget to (?:ask|reach)|be afraid)|you(?:'|’)?re right to (?:ask|wonder|check|question)|^(不要担心|别担心|不用担心|别客气|不客气)",
    )
    .expect("valid")
});

/// Acknowledgements that open a correction; the learning is what follows.
const ACKNOWLEDGEMENTS: &[&str] = &[
    "you're absolutely right",
    "you’re absolutely right",
    "you're quite right",
    "you're right",
    "you’re right",
    "you are right",
    "good catch",
    "my mistake",
    "my bad",
    "my apologies",
    "apologies",
    "i was wrong",
    "i stand corrected",
    "ah, that's on me",
    "ah, that’s on me",
    "that's on me",
    "that’s on me",
    "sorry about that",
    "sorry",
    "understood",
    "got it",
    "noted",
    "明白了",
    "知道了",
    "收到",
    "记住了",
    "记下了",
    "好的",
    "你说得对",
    "你是对的",
    "我搞错了",
    "我弄错了",
    "是我的错",
    "抱歉",
];

/// `text` without the acknowledgements it opens with ("You're right —",
/// "你说得对，"), first letter capitalised.
pub fn strip_acknowledgement(text: &str) -> String {
    capitalise(without_acknowledgement(text.trim()))
}

/// Whether narrative `sentence` gives no reason for `rule`: without its
/// acknowledgement ("You're right, sorry —") it has no key term the rule
/// lacks. "Sorry — I'll use pnpm" only repeats "Always use pnpm in this
/// repo", and "You're right." says nothing; "the lockfile is pnpm's" says
/// why.
pub fn restates(sentence: &str, rule: &str) -> bool {
    super::terms(without_acknowledgement(sentence)).is_subset(&super::terms(rule))
}

/// `text` without the acknowledgements it opens with, as a slice.
pub(crate) fn without_acknowledgement(text: &str) -> &str {
    let mut t = text;
    loop {
        // every acknowledgement is ASCII, CJK or ’: see `opens_with`
        let Some(p) = ACKNOWLEDGEMENTS.iter().find(|p| {
            opens_with(t, p)
                && t[p.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric() || is_cjk(c))
        }) else {
            return t;
        };
        t = t[p.len()..].trim_start_matches([
            ' ', ',', '.', '!', ':', '—', '-', '–', '，', '。', '！', '：',
        ]);
    }
}

/// Every signal in assistant reply `message`, in order, one per sentence.
pub fn detect(message: &str) -> Vec<Found> {
    detect_from(message, Origin::Assistant)
}

/// Every signal in `message`, in order, one per sentence. From the user,
/// only stated rules count (what a user narrates is no learning of theirs).
pub fn detect_from(message: &str, origin: Origin) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    for s in sentences(&readable(message, origin), origin) {
        if out.iter().any(|f| f.sentence == s) {
            continue;
        }
        if let Some(f) = classify(&s, origin) {
            out.push(f);
        }
    }
    out
}

fn classify(s: &str, origin: Origin) -> Option<Found> {
    let n = s.chars().count();
    if !(5..=500).contains(&n) || EXCLUDE.is_match(&lower(s)) {
        return None;
    }
    let rule = stated_rule(s, origin);
    let s_lower = lower(s);
    let mut kind = match origin {
        Origin::Assistant => PATTERNS
            .iter()
            .find(|p| p.re.is_match(&s_lower))
            .map(|p| p.kind),
        Origin::User => None,
    };
    // "Avoid nothing else; we're done." names nothing to avoid
    if kind == Some("anti-pattern") && rule.is_none() && content(s) < 2.0 {
        kind = None;
    }
    let kind = kind.or_else(|| {
        rule.as_ref()
            .map(|r| if r.negative { "anti-pattern" } else { "rule" })
    })?;
    Some(Found {
        kind,
        sentence: s.to_string(),
        rule,
    })
}

/// What to stage from `message`: one learning per rule it states, with the
/// narrative around it as the rule's `why`; when it states none, at most
/// one narrative learning (assistant replies only).
pub fn learnings(message: &str, origin: Origin) -> Vec<Learning> {
    let found = detect_from(message, origin);
    // Rules, restatements merged: (rule, its sentence, its position), and
    // the key terms of the rules and sentences seen for it (analysed once:
    // comparing every pair again was a fifth of a long session's end).
    let mut rules: Vec<(Stated, String, usize)> = Vec::new();
    let mut seen: Vec<(KeyTerms, KeyTerms)> = Vec::new();
    for (i, f) in found.iter().enumerate() {
        let Some(r) = &f.rule else { continue };
        let (rule_terms, sentence_terms) = (KeyTerms::of(&r.text), KeyTerms::of(&f.sentence));
        let same = seen.iter().position(|(kept_rule, kept_sentence)| {
            similarity_of(kept_rule, &rule_terms) >= DUPLICATE_SIMILARITY
                || similarity_of(kept_sentence, &sentence_terms) >= DUPLICATE_SIMILARITY
        });
        match same {
            Some(k) => {
                let (kept, sentence, _) = &mut rules[k];
                if r.marker > kept.marker {
                    *kept = r.clone();
                    *sentence = f.sentence.clone();
                    seen[k] = (rule_terms, sentence_terms);
                }
            }
            None => {
                rules.push((r.clone(), f.sentence.clone(), i));
                seen.push((rule_terms, sentence_terms));
            }
        }
    }
    if !rules.is_empty() {
        if origin == Origin::Assistant {
            rules.truncate(MAX_RULES_PER_REPLY);
        }
        // Each narrative sentence explains the next rule after it (or the last).
        let mut why: Vec<Vec<String>> = vec![Vec::new(); rules.len()];
        for (i, f) in found.iter().enumerate() {
            let text = match &f.rule {
                Some(r) => r.lead.clone(),
                None => Some(f.sentence.clone()),
            };
            let Some(text) = text else { continue };
            let k = rules
                .iter()
                .position(|(_, _, at)| *at >= i)
                .unwrap_or(rules.len() - 1);
            if !restates(&text, &rules[k].0.text) {
                why[k].push(text);
            }
        }
        return rules
            .into_iter()
            .zip(why)
            .map(|((r, _, _), why)| Learning {
                kind: if r.negative { "anti-pattern" } else { "rule" },
                text: r.text,
                why: joined(&why),
                origin,
            })
            .collect();
    }
    if origin == Origin::User {
        return Vec::new();
    }
    let Some(best) = (0..found.len()).min_by_key(|&i| (priority(found[i].kind), i)) else {
        return Vec::new();
    };
    let mut text = strip_acknowledgement(&found[best].sentence);
    if content(&text) < 2.0 {
        // "You're right." — the correction is the sentence after it
        let all = sentences(&readable(message, origin), origin);
        let next = all
            .iter()
            .skip_while(|s| **s != found[best].sentence)
            .skip(1)
            .find(|s| content(s) >= 2.0);
        match next {
            Some(n) => text = strip_acknowledgement(n),
            None => return Vec::new(),
        }
    }
    let why: Vec<String> = found
        .iter()
        .enumerate()
        .filter(|(i, f)| *i != best && !restates(&f.sentence, &text))
        .map(|(_, f)| f.sentence.clone())
        .collect();
    vec![Learning {
        kind: found[best].kind,
        text,
        why: joined(&why),
        origin,
    }]
}

/// Which narrative sentence is the learning when no rule is stated: the
/// one that says what to do first.
fn priority(kind: &str) -> u8 {
    match kind {
        "anti-pattern" | "method" | "rule" => 0,
        "error" => 1,
        "cognitive-shift" => 2,
        "insight" => 3,
        _ => 4,
    }
}

fn joined(parts: &[String]) -> Option<String> {
    let text = parts
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    (!text.is_empty()).then(|| crate::platform::agents::transcript::truncate(&text, WHY_CHARS))
}

/// Whether user prompt `prompt` may state a rule: a few substring tests, so
/// that the per-prompt hook compiles and runs the patterns (about 2 ms,
/// measured by `cargo bench --bench signals`) only for prompts that might
/// (most do not: 10 to 15 µs). Every form a user's rule can take has one of
/// these words; a user's bare "make sure" or 一定要 is no rule, so those are
/// not among them.
pub fn may_state_rule(prompt: &str) -> bool {
    const NEEDLES: &[&str] = &[
        "always",
        "never",
        "again",
        " ever ",
        "from now on",
        "forward",
        "future",
        "next time",
        "henceforth",
        "rememb",
        "lesson",
        "rule",
        "takeaway",
        "note to self",
        "approach",
        "right way",
        "correct way",
        "proper way",
        "best practice",
        "must not",
        "stop ",
        "以后",
        "今后",
        "往后",
        "从现在",
        "下次",
        "下回",
        "下一次",
        "记住",
        "记得",
        "牢记",
        "切记",
        "教训",
        "经验",
        "规则",
        "原则",
        "都必须",
        "永远",
        "始终",
        "总是",
        "每次",
        "不要再",
        "别再",
        "不能再",
        "不许再",
        "不准再",
        "千万",
        "切忌",
        "禁止",
        "做法",
    ];
    let window = readable(prompt, Origin::User);
    let lower = window.to_ascii_lowercase();
    NEEDLES.iter().any(|n| lower.contains(n))
}

/// The part of a message read for signals: a long user prompt only at its
/// start and end.
fn readable(message: &str, origin: Origin) -> std::borrow::Cow<'_, str> {
    if origin == Origin::Assistant || message.len() <= 2 * PROMPT_WINDOW {
        return message.into();
    }
    let head = text::floor_boundary(message, PROMPT_WINDOW);
    let tail = text::ceil_boundary(message, message.len() - PROMPT_WINDOW);
    // cut at line ends, so no sentence is read half
    let head = &message[..message[..head].rfind('\n').unwrap_or(head)];
    let tail = &message[message[tail..].find('\n').map_or(tail, |i| tail + i + 1)..];
    format!("{head}\n{tail}").into()
}

/// Sentences of prose: code blocks and inline code are skipped, text is cut
/// at sentence ends (`.`, `!`, `?`, `。`, `！`, `？`) and line breaks, list
/// markers are dropped. A user's quoted lines (`> …`) are pasted, not said.
fn sentences(text: &str, origin: Origin) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence
            || line.starts_with("    ")
            || (origin == Origin::User && line.trim_start().starts_with('>'))
        {
            continue;
        }
        let mut cur = String::new();
        let chars: Vec<char> = line.chars().collect();
        let mut in_code = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == '`' {
                in_code = !in_code;
            }
            cur.push(c);
            let ends = matches!(c, '。' | '！' | '？')
                || (!in_code
                    && matches!(c, '.' | '!' | '?')
                    && chars.get(i + 1).is_none_or(|n| n.is_whitespace()));
            if ends {
                out.push(std::mem::take(&mut cur));
            }
        }
        if !cur.trim().is_empty() {
            out.push(cur);
        }
    }
    out.into_iter()
        .map(|s| list_marker_dropped(s.trim()).to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `- x`, `* x`, `> x`, `1. x`, `2) x` → `x`.
fn list_marker_dropped(s: &str) -> &str {
    let s = s.trim_start_matches(['-', '*', '>', '•', ' ']).trim_start();
    let digits = s.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && digits < 3 {
        let rest = &s[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return r.trim_start();
        }
    }
    s
}

// ---------------------------------------------------------------------------
// Rule statements

#[cfg(test)]
mod tests {
    use super::*;

    /// A letter whose lower case is shorter (the Kelvin sign) is no
    /// acknowledgement's letter, and cuts nothing inside a character.
    #[test]
    fn an_acknowledgement_is_matched_in_place() {
        assert_eq!(
            strip_acknowledgement("My mista\u{212A}e, always use pnpm in this repo."),
            "My mista\u{212A}e, always use pnpm in this repo."
        );
        assert_eq!(
            strip_acknowledgement("MY MISTAKE, always use pnpm in this repo."),
            "Always use pnpm in this repo."
        );
        assert_eq!(
            strip_acknowledgement("你说得对，以后都用 pnpm。"),
            "以后都用 pnpm。"
        );
    }

    fn kinds(msg: &str) -> Vec<&'static str> {
        detect(msg).into_iter().map(|f| f.kind).collect()
    }

    fn staged(msg: &str, origin: Origin) -> Vec<String> {
        learnings(msg, origin).into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn each_kind_in_both_languages() {
        assert_eq!(
            kinds("You're right — the config lives in /etc, not in the repo."),
            ["correction"]
        );
        assert_eq!(kinds("你说得对，配置文件在 /etc 下面。"), ["correction"]);
        assert_eq!(
            kinds("The build failed because the lockfile was stale."),
            ["error"]
        );
        assert_eq!(kinds("问题出在连接池太小。"), ["error"]);
        assert_eq!(
            kinds("It turns out the cache was never invalidated."),
            ["insight"]
        );
        assert_eq!(kinds("原来缓存从来没有失效过。"), ["insight"]);
        assert_eq!(
            kinds("I had assumed the API was idempotent, but it creates a new order each time."),
            ["cognitive-shift"]
        );
        assert_eq!(
            kinds("之前以为接口是幂等的，其实每次都会创建新订单。"),
            ["cognitive-shift"]
        );
        assert_eq!(
            kinds("A simpler approach is to batch the writes."),
            ["method"]
        );
        assert_eq!(kinds("更好的办法是批量写入。"), ["method"]);
        assert_eq!(
            kinds("Never run the migration without a backup."),
            ["anti-pattern"]
        );
        assert_eq!(kinds("不要在主线程里做网络请求。"), ["anti-pattern"]);
        assert_eq!(
            kinds("Lesson: always run schema migrations inside a transaction."),
            ["rule"]
        );
        assert_eq!(kinds("以后所有定时任务都用 UTC 配置。"), ["rule"]);
    }

    #[test]
    fn look_alikes_and_code_are_ignored() {
        assert!(kinds("Don't worry, this is expected.").is_empty());
        assert!(kinds("You're right to ask about that.").is_empty());
        assert!(
            kinds("Here is the code:\n```\n// never do this\nfailed because\n```\nDone.")
                .is_empty()
        );
        assert!(kinds("I updated the file and ran the tests.").is_empty());
        assert!(kinds("Always happy to help!").is_empty());
        assert!(kinds("Never mind, it passed.").is_empty());
        assert!(kinds("This should not take long at all.").is_empty());
        assert!(kinds("下次见！").is_empty());
        assert!(kinds("以后再说吧，先把报表做完。").is_empty());
        assert!(kinds("Rule-based approaches work better on this data.").is_empty());
        assert!(kinds("Lessons are stored in markdown files.").is_empty());
    }

    #[test]
    fn the_rule_is_staged_not_the_apology() {
        let msg = "You're right, I was wrong: the migration ran outside a transaction. Lesson: always run schema migrations inside a transaction.";
        let l = learnings(msg, Origin::Assistant);
        assert_eq!(l.len(), 1, "{l:?}");
        assert_eq!(
            l[0].text,
            "Always run schema migrations inside a transaction."
        );
        assert_eq!(l[0].kind, "rule");
        assert!(
            l[0].why
                .as_deref()
                .unwrap()
                .contains("outside a transaction")
        );
    }

    #[test]
    fn an_apology_that_repeats_the_rule_is_no_why() {
        assert!(restates(
            "Sorry — I'll use pnpm.",
            "Always use pnpm in this repo"
        ));
        assert!(restates("You're right.", "Always use pnpm."));
        assert!(!restates(
            "You're right, the lockfile is pnpm's.",
            "Always use pnpm."
        ));
        let l = learnings(
            "You're right, sorry — I'll use pnpm. From now on I'll always use pnpm.",
            Origin::Assistant,
        );
        assert_eq!(l.len(), 1, "{l:?}");
        assert_eq!(l[0].why, None, "{l:?}");
    }

    #[test]
    fn a_rule_said_twice_is_one_item() {
        let msg = "The job failed because the disk was full. Never write temp files to the root partition. In short: don't put temp files on the root partition.";
        assert_eq!(
            staged(msg, Origin::Assistant),
            ["Never write temp files to the root partition."]
        );
        let two = "Always use tabs in Makefiles. Never commit generated protobuf files.";
        assert_eq!(staged(two, Origin::Assistant).len(), 2);
    }

    #[test]
    fn rules_are_phrased_as_rules() {
        let user = |m| staged(m, Origin::User);
        assert_eq!(
            user("Don't ever hard-code the API URL again."),
            ["Never hard-code the API URL."]
        );
        assert_eq!(
            user("from now on, never deploy on Fridays"),
            ["Never deploy on Fridays"]
        );
        assert_eq!(
            user("remember: staging is in eu-west-1"),
            ["Staging is in eu-west-1"]
        );
        assert_eq!(user("以后不要再用 moment.js 了。"), ["不要用 moment.js。"]);
        assert_eq!(
            staged(
                "Going forward, I'll tag every image with the commit SHA.",
                Origin::Assistant
            ),
            ["Tag every image with the commit SHA."]
        );
        assert_eq!(
            staged(
                "The correct approach is to read the region from AWS_REGION.",
                Origin::Assistant
            ),
            ["Read the region from AWS_REGION."]
        );
        assert_eq!(
            staged(
                "If the build fails on CI, always clear the cache first.",
                Origin::Assistant
            ),
            ["If the build fails on CI, always clear the cache first."]
        );
    }

    #[test]
    fn a_users_task_instruction_is_no_rule() {
        for p in [
            "Don't change the public API in this PR.",
            "Make sure the tests pass before you open the PR.",
            "Should we always cache the rates?",
            "Never mind, let's look at the login page.",
            "Don't do that again.",
            "不要担心，先把报表做完。",
        ] {
            assert!(staged(p, Origin::User).is_empty(), "{p}");
        }
        // but a narrative from the user is no learning of theirs either
        assert!(
            staged(
                "You're right, the build failed because of the cache.",
                Origin::User
            )
            .is_empty()
        );
    }

    #[test]
    fn a_correction_without_a_rule_is_staged_without_its_apology() {
        assert_eq!(
            staged(
                "You're right — the staging database listens on port 5433, not 5432. I fixed the config.",
                Origin::Assistant
            ),
            ["The staging database listens on port 5433, not 5432."]
        );
        assert_eq!(
            staged(
                "Good catch. The retry loop never backs off.",
                Origin::Assistant
            ),
            ["The retry loop never backs off."]
        );
    }

    #[test]
    fn the_prefilter_passes_every_rule_and_long_prompts_are_windowed() {
        assert!(may_state_rule("From now on, always use pnpm"));
        assert!(may_state_rule("以后不要在周五上线"));
        assert!(!may_state_rule("fix the CSS on the login page please"));
        let pasted = format!(
            "Proofread this:\n{}\nthanks",
            "Always use the Oxford comma in lists of three items.\n".repeat(200)
        );
        assert!(staged(&pasted, Origin::User).len() <= 1);
        let long = format!(
            "{}\nFrom now on, never push to main directly.",
            "log line\n".repeat(2000)
        );
        assert_eq!(
            staged(&long, Origin::User),
            ["Never push to main directly."]
        );
    }
}
