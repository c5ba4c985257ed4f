//! Whether a sentence states a rule, and the rule in its own words: the
//! labels, time markers and imperative starts of [`super::signals`]'s docs, the
//! negations normalised ("don't ever" -> "never"), and how much content a
//! candidate rule carries.

use regex::Regex;
use std::sync::LazyLock;

use super::signals::{
    EXCLUDE, Marker, Origin, Stated, strip_acknowledgement, without_acknowledgement,
};

/// Openers that carry nothing: "OK,", "So", "Also,", "Please", "In short:",
/// "Note:", "注意：". (A note is no rule by itself: "Note: the server uses
/// port 3000"; "Note: always …" is one.)
static CONNECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?:ok(?:ay)?|so|and|also|but|then|please|pls|btw|oh|ah|hey|thus|therefore|hence|in short|in other words|to be clear|to sum up|one more thing|in general|generally)(?-u:\b)[,:]?(?-u:\s)*|(?:note|nb|important|tip|pro tip|warning|caution)(?-u:\s)*:(?-u:\s)*|(?:好的|好|那么|那|所以|因此|另外|还有|请|总之|简单说|总的来说)[，,：:]?|(?:注意|重要|提醒|提示|警告)[：:])",
    )
    .expect("valid")
});

/// "Lesson:", "The rule is that", "Remember:", "教训是：", "记住，".
static LABEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?:the |a |one |key |important |my )*(?:lessons?(?: (?:learned|learnt))?|rule(?: of thumb)?|takeaway|note to self)(?: (?:here|for (?:next time|the future|future sessions)))?(?:(?-u:\s)*[:：,—]|(?-u:\s)+[–-](?-u:\s)|(?-u:\s)+is(?-u:\b)(?: that(?-u:\b)| to(?-u:\b))?(?-u:\s)*[:：]?)(?-u:\s)*|(?:please )?(?:always )?remember(?:(?-u:\s)*[:：,，]|(?-u:\s)+(?:this|that)(?-u:\b)(?-u:\s)*[:：,，]?)(?-u:\s)*|(?:请|请你|一定要|务必)?(?:记住|牢记|切记)(?:这一点|这点|这个|以下)?[：:，,]?|(?:这次的)?(?:教训|经验|规则|原则)(?:就是|是)?[：:，,]?)",
    )
    .expect("valid")
});

/// "Remember to …", "记得…": a rule from the agent; from the user, a
/// reminder for the task at hand unless it says it lasts ("whenever …").
static REMINDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(?:please )?(?:always )?remember to(?-u:\s)+|(?:请|请你)?记得[：:，,]?)")
        .expect("valid")
});

/// Words that make a reminder last: "whenever", "every time", "每次", "都".
static LASTING_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)(?:whenever|every ?time|each time|any ?time|always|every (?:release|deploy|commit|change|session))(?-u:\b)|每次|每当|都|总是|始终")
        .expect("valid")
});

/// "The correct approach is to", "best practice is to", "正确的做法是".
static APPROACH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?:the )?(?:correct|right|proper|safe) (?:approach|way(?: to do (?:it|this))?|thing to do|order)(?: here)? (?:is|would be) (?:to )?|(?:the )?best practice is (?:to )?|it(?:'|’)?s always (?:a good idea|best|good practice|safer|wise) to |it is always (?:a good idea|best|good practice|safer|wise) to |正确的(?:做法|方法|方式|顺序)是[：:，,]?|正确做法是[：:，,]?)",
    )
    .expect("valid")
});

/// "From now on", "going forward", "next time", "以后", "下次".
static LASTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?:from now on|going forward|moving forward|in (?:the )?future|next time(?: round| around)?|henceforth|for future reference|from here on(?: out)?|in later sessions|in every future session)(?-u:\b)(?-u:\s)*[,，:：]?(?-u:\s)*|(?:从现在开始|从现在起|从今以后|从今往后|今后|以后|往后|下次|下一次|下回)[，,：:]?)",
    )
    .expect("valid")
});

/// The speaker of a commitment: "I'll", "we should", "you must", "我会".
static SPEAKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?:i|we|you)(?:'ll|’ll| will| should| must| need to| have to|'d better| had better| shall| are going to| am going to|'re going to|’re going to)|let(?:'|’)s)(?-u:\s)+|^(?:我们|咱们|我|你)(?:以后|今后|下次)?(?:会|要|得|应该|必须|都)?",
    )
    .expect("valid")
});

/// A bare "we"/"you" before an instruction, after a marker: "From now on
/// we use Postgres 16" → "Use Postgres 16".
static BARE_SPEAKER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:we|you)(?-u:\s)+").expect("valid"));

/// A user's preference about the agent: "I prefer that you always …",
/// "I want you to never …".
static PREFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^i(?:'d|’d| would)? (?:prefer|want|like|need)(?: it)?(?: that| if| when)? you (?:to )?",
    )
    .expect("valid")
});

/// What follows "never"/"always" when it is no instruction: idioms, past
/// tense, descriptions ("always happy to help", "never been", "never mind").
static NOT_AN_INSTRUCTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:always|never)(?-u:\s)+(?:happy|glad|pleased|a pleasure|welcome|here|there|available|ready|mind|fear|again|be able|been|was|were|is|are|had|has|did|does|gave|went|came|knew|thought|took|got|seemed|said|[0-9a-z_]*[0-9a-rtv-z_]s(?-u:\b))|^(?:maybe|perhaps|could|might|can|probably)(?-u:\b)|^need (?:more|less|a|an|some)(?-u:\b)|^(?:可以试试|可以考虑|可以|可能|也许|或许|大概|随时|有问题|有空|有需要|再说|见|的)",
    )
    .expect("valid")
});

/// Past participles that are also instructions after "never"/"always".
const ED_VERBS: &[&str] = &[
    "embed", "exceed", "feed", "heed", "need", "proceed", "seed", "shed", "shred", "speed",
    "succeed", "bleed", "breed",
];

/// An English instruction can start a rule after "from now on": a
/// determiner or pronoun there starts a description ("From now on the
/// service reads …").
const NOT_IMPERATIVE_STARTS: &[&str] = &[
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "it",
    "its",
    "it's",
    "there",
    "our",
    "my",
    "your",
    "his",
    "her",
    "their",
    "he",
    "she",
    "they",
    "i",
    "we",
    "you",
    "everything",
    "all",
    "nothing",
    "someone",
    "anyone",
    "if",
    "when",
];

/// Words of a Chinese instruction: a rule after "以后"/"下次" says what to
/// do (要, 先, 都, 不, 用, 必须 …).
const CN_ACTION: &[&str] = &[
    "要", "先", "都", "别", "不", "用", "应该", "必须", "一定", "务必", "记得", "注意", "避免",
    "禁止", "尽量", "请", "每次", "统一", "只", "总是", "始终", "永远", "确认", "检查",
];

/// Clause boundaries inside a sentence, where a rule may start after its
/// narrative ("I ran it outside a transaction; always …", "…，以后…").
const CLAUSE_BREAKS: &[&str] = &[
    "; ", "；", ": ", "：", " — ", "—", " – ", " -- ", "，", ", ",
];

/// Openers of a condition: a rule after "If X," keeps its condition.
static CONDITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:if|when|whenever|before|after|unless|once|as long as|every time|如果|当|在|每当|只要|一旦|每次)")
        .expect("valid")
});

/// The rule `sentence` states, if it states one.
pub fn stated_rule(sentence: &str, origin: Origin) -> Option<Stated> {
    let s = sentence.trim();
    let last = s
        .trim_end_matches(['"', '\'', ')', '”', '’', '）', ' '])
        .chars()
        .last()?;
    if matches!(last, '?' | '？') {
        return None;
    }
    let s_lower = lower(s);
    for at in clause_starts(s) {
        let clause = s[at..].trim_start();
        let clause_lower = &s_lower[s.len() - clause.len()..];
        let Some((text, negative, marker)) = rule_at(clause, clause_lower, origin, at == 0) else {
            continue;
        };
        let before = s[..at]
            .trim_end()
            .trim_end_matches([';', '；', ':', '：', '—', '–', '-', '，', ','])
            .trim_end();
        if before.is_empty() {
            return Some(Stated {
                text,
                negative,
                marker,
                lead: None,
            });
        }
        let before_plain = strip_acknowledgement(before);
        if CONDITION.is_match(&lower(&before_plain)) {
            // "If the build fails, always check the cache first."
            let sep = &s[before.len()..at];
            let rest = s[at..].trim_start();
            return Some(Stated {
                text: format!("{before_plain}{sep}{rest}"),
                negative,
                marker,
                lead: None,
            });
        }
        let lead = (content(&before_plain) >= 2.0).then(|| before.to_string());
        return Some(Stated {
            text,
            negative,
            marker,
            lead,
        });
    }
    None
}

/// Where a clause may start in `s`: its start and the end of each
/// [`CLAUSE_BREAKS`] in it, in order, once each. One pass over the bytes:
/// a search per break was a fifth of [`stated_rule`]'s time on a long
/// session's end, most of it setting each search up on a short sentence.
fn clause_starts(s: &str) -> Vec<usize> {
    let bytes = s.as_bytes();
    let mut starts = vec![0];
    // Where each break's last match ended: a break is not found again
    // inside itself, as a search for it would not (" -- -- ").
    let mut free_from = [0usize; CLAUSE_BREAKS.len()];
    for (i, &b) in bytes.iter().enumerate() {
        // Every break begins with one of these bytes (`；：，` with 0xEF,
        // `—–` with 0xE2).
        if !matches!(b, b';' | b':' | b',' | b' ' | 0xE2 | 0xEF) {
            continue;
        }
        for (k, brk) in CLAUSE_BREAKS.iter().enumerate() {
            if i >= free_from[k] && bytes[i..].starts_with(brk.as_bytes()) {
                free_from[k] = i + brk.len();
                starts.push(i + brk.len());
            }
        }
    }
    starts.sort_unstable();
    starts.dedup();
    starts
}

/// A rule starting at the beginning of `clause`: (its wording, negative,
/// marker). `clause_lower` is `clause` through [`lower`], made once for
/// every pattern tried on a tail of it (each lowered its tail anew: a
/// dozen copies of the clause).
fn rule_at(
    clause: &str,
    clause_lower: &str,
    origin: Origin,
    sentence_start: bool,
) -> Option<(String, bool, Marker)> {
    debug_assert_eq!(clause.len(), clause_lower.len());
    let trimmed = clause.trim();
    let start = clause.len() - clause.trim_start().len();
    let trimmed_lower = &clause_lower[start..start + trimmed.len()];
    // Every tail tried below is `trimmed` cut after a match: a suffix of
    // it, lowered by its length.
    let lower_tail = |tail: &str| -> &str {
        debug_assert!(trimmed.ends_with(tail));
        &trimmed_lower[trimmed.len() - tail.len()..]
    };
    let mut rest = trimmed;
    let mut marker = Marker::Bare;
    let mut next_time = false;
    let mut reminder = false;
    loop {
        let before = rest;
        if sentence_start {
            rest = without_acknowledgement(rest);
        }
        if let Some(m) = CONNECTIVE.find(lower_tail(rest)) {
            rest = rest[m.end()..].trim_start();
        }
        if let Some(m) = LABEL.find(lower_tail(rest))
            && is_bare_word_match(rest, m.end())
        {
            rest = rest[m.end()..].trim_start();
            marker = marker.max(Marker::Labelled);
        }
        if let Some(m) = REMINDER.find(lower_tail(rest)) {
            rest = rest[m.end()..].trim_start();
            reminder = true;
        }
        if let Some(m) = APPROACH.find(lower_tail(rest)) {
            rest = rest[m.end()..].trim_start();
            marker = marker.max(Marker::Labelled);
        }
        if let Some(m) = LASTING.find(lower_tail(rest)) {
            // "Next time you open the app, …" is a time, not a rule
            next_time = m.as_str().to_lowercase().starts_with("next time");
            rest = rest[m.end()..].trim_start();
            marker = marker.max(Marker::Lasting);
        }
        if rest.len() == before.len() {
            break;
        }
    }
    // The speaker of a commitment ("I'll", "we should"): after a marker, or
    // before "always"/"never" ("You should never …"); "I'll remember to X"
    // is a rule X.
    if let Some(m) = SPEAKER.find(lower_tail(rest)) {
        let after = rest[m.end()..].trim_start();
        const REMEMBER_TO: &str = "remember to ";
        if let Some(r) =
            opens_with(after, REMEMBER_TO).then(|| after[REMEMBER_TO.len()..].trim_start())
        {
            rest = r;
            marker = Marker::Labelled;
        } else if marker > Marker::Bare || starts_always_never(after) || starts_cjk_must(after) {
            rest = after;
        }
    } else if marker > Marker::Bare
        && !next_time
        && let Some(m) = BARE_SPEAKER.find(lower_tail(rest))
    {
        rest = rest[m.end()..].trim_start();
    } else if let Some(m) = PREFERENCE.find(lower_tail(rest)) {
        let after = rest[m.end()..].trim_start();
        if starts_always_never(after) {
            rest = after;
        }
    }
    // "不要再…了" → "不要…", "don't ever" → "never"
    let (body, negative, lasting_word) = normalise_negation(rest);
    let body_lower = lower(&body);
    if body.is_empty() || NOT_AN_INSTRUCTION.is_match(&body_lower) || EXCLUDE.is_match(&body_lower)
    {
        return None;
    }
    if let Some(w) = body
        .split_whitespace()
        .nth(1)
        .filter(|_| starts_always_never(&body))
    {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if w.ends_with("ed") && !ED_VERBS.contains(&w.as_str()) {
            return None; // "never succeeded", "always worked": a description
        }
    }
    let first = body.split_whitespace().next().unwrap_or("").to_lowercase();
    let first = first.trim_end_matches([',', ':']);
    let cjk_start = body.chars().next().is_some_and(is_cjk);
    if reminder {
        marker = match origin {
            Origin::Assistant => marker.max(Marker::Labelled),
            Origin::User if marker > Marker::Bare || LASTING_WORD.is_match(&body_lower) => {
                marker.max(Marker::Labelled)
            }
            Origin::User => return None,
        };
    }
    let accepted = match marker {
        Marker::Labelled => true,
        // an English instruction starts with a verb: not with a determiner,
        // a pronoun or a plural ("From now on, requests go …"); a Chinese one
        // says what to do ("下次会议在周三" is only the next meeting)
        Marker::Lasting if cjk_start => CN_ACTION.iter().any(|w| body.contains(w)),
        Marker::Lasting => {
            starts_always_never(&body)
                || (!NOT_IMPERATIVE_STARTS.contains(&first)
                    && (!first.ends_with('s') || first.ends_with("ss")))
        }
        Marker::Bare => {
            let persistent = lasting_word || starts_always_never(&body);
            let must = starts_make_sure(&body) || starts_cjk_must(&body);
            let must_anywhere = MUST_ANYWHERE.is_match(&body_lower);
            match origin {
                // a user's bare "Don't X", "Make sure X" or "一定要X" is for
                // the task at hand; "stop doing X", "X must never" last
                Origin::User => {
                    persistent
                        || STOP_DOING.is_match(&body_lower)
                        || (must_anywhere && !body.contains("一定要") && !body.contains("务必"))
                }
                Origin::Assistant => {
                    persistent
                        || negative
                        || must
                        || must_anywhere
                        || STOP_DOING.is_match(&body_lower)
                }
            }
        }
    };
    if !accepted || content(&body) < RULE_CONTENT {
        return None;
    }
    let negative = negative || starts_with_negation(&body);
    Some((capitalise(&body), negative, marker))
}

/// A label ending in a word ("the rule is") must end at a word boundary.
fn is_bare_word_match(text: &str, end: usize) -> bool {
    end > 0
        && (text[..end].ends_with(|c: char| !c.is_ascii_alphanumeric())
            || text[end..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_ascii_alphanumeric()))
}

/// "X should always Y", "X must never Y", "迁移一定要在事务里跑": a rule
/// stated with its subject first.
static MUST_ANYWHERE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?-u:\b)(?:should|must) (?:always|never)(?-u:\b)|(?-u:\b)must not(?-u:\b)|(?:一定要|务必|千万不要|千万别|永远不要|绝对不要|不要再|别再|每次都要|都必须|一律)",
    )
    .expect("valid")
});

/// "Stop using console.log": a habit to drop ("Stop the server" is a task).
static STOP_DOING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^stop (?-u:\w)+ing(?-u:\b)").expect("valid"));

/// Whether `s` opens with `opening` (ASCII, CJK or ’), its ASCII letters
/// in any case. Compared in place: lowering the whole text for each test
/// was a tenth of a long session's end, and a cut after lowering could
/// fall inside a character whose lower case is shorter (the Kelvin sign).
pub(crate) fn opens_with(s: &str, opening: &str) -> bool {
    s.get(..opening.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(opening))
}

fn starts_always_never(s: &str) -> bool {
    let l = s.trim_start();
    ["always ", "never ", "永远", "始终", "总是", "每次", "一律"]
        .iter()
        .any(|p| opens_with(l, p))
}

fn starts_make_sure(s: &str) -> bool {
    let l = s.trim_start();
    [
        "make sure",
        "be sure to",
        "ensure that",
        "ensure you",
        "remember to",
    ]
    .iter()
    .any(|p| opens_with(l, p))
}

fn starts_cjk_must(s: &str) -> bool {
    ["一定要", "务必", "必须", "千万", "切忌", "禁止"]
        .iter()
        .any(|p| s.starts_with(p))
}

pub(crate) fn starts_with_negation(s: &str) -> bool {
    let l = s.trim_start();
    ["never ", "don't ", "don’t ", "do not ", "avoid ", "no "]
        .iter()
        .any(|p| opens_with(l, p))
        || (opens_with(l, "stop ") && STOP_DOING.is_match(&l.to_lowercase()))
        || [
            "不要",
            "别",
            "不能",
            "不许",
            "不准",
            "禁止",
            "避免",
            "千万不要",
            "千万别",
            "切忌",
            "永远不要",
            "绝对不要",
            "永远别",
            "绝不",
            "不再",
        ]
        .iter()
        .any(|p| l.starts_with(p))
}

/// The rule's wording with its negation made plain: "don't ever X again" →
/// "never X", "不要再X了" → "不要X". Returns (wording, negative, whether it
/// said the rule lasts: "ever", "again", "再").
pub(crate) fn normalise_negation(s: &str) -> (String, bool, bool) {
    static EVER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:don(?:'|’)?t|do not|never)(?-u:\s)+ever(?-u:\s)+").expect("valid")
    });
    static AGAIN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?-u:\s)+(?:ever again|again|any ?more)(?-u:\b)").expect("valid")
    });
    let mut text = s.trim().to_string();
    let mut lasting = false;
    // Only "don't …" or "never …" can start with what EVER matches.
    if text.as_bytes().first().is_some_and(|b| b"dDnN".contains(b))
        && let Some(m) = EVER.find(&lower(&text))
    {
        text = format!("never {}", &text[m.end()..]);
        lasting = true;
    }
    let negative = starts_with_negation(&text);
    if negative && let Some(m) = AGAIN.find(&lower(&text)) {
        text.replace_range(m.range(), "");
        lasting = true;
    }
    // Each form below holds 再.
    if text.contains('再') {
        for (again, plain) in [
            ("不要再", "不要"),
            ("别再", "别"),
            ("不能再", "不能"),
            ("不许再", "不许"),
            ("不准再", "不准"),
        ] {
            if let Some(i) = text.find(again) {
                text.replace_range(i..i + again.len(), plain);
                lasting = true;
                // "不要再用 X 了，…" → "不要用 X，…"
                let from = i + plain.len();
                if let Some(j) = clause_end(&text[from..]) {
                    let cut = from + j;
                    let head = text[from..cut].trim_end();
                    if let Some(h) = head.strip_suffix('了') {
                        let keep = h.trim_end().len();
                        text.replace_range(from + keep..cut, "");
                    }
                } else if text.trim_end().ends_with('了') {
                    let t = text
                        .trim_end()
                        .trim_end_matches('了')
                        .trim_end()
                        .to_string();
                    text = t;
                }
                break;
            }
        }
    }
    let negative = negative || starts_with_negation(&text);
    (text, negative, lasting)
}

/// Where the clause at the start of `s` ends: CJK punctuation, or ASCII
/// punctuation before a space ("moment.js" goes on).
pub(crate) fn clause_end(s: &str) -> Option<usize> {
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next_blank = it.peek().is_none_or(|(_, n)| n.is_whitespace());
        if matches!(c, '，' | '。' | '！' | '；')
            || (matches!(c, ',' | '.' | '!' | ';') && next_blank)
        {
            return Some(i);
        }
    }
    None
}

/// How much a rule must say ([`content`]): "Never do that again" and
/// "不要再这样了" say nothing by themselves; "不要用 moment.js" does.
const RULE_CONTENT: f64 = 1.5;

/// How much a text says: words of three or more letters (a dotted or
/// hyphenated name is one word) that are not function words count 1, CJK
/// characters that are not pronouns or particles 0.5.
pub(crate) fn content(text: &str) -> f64 {
    const FILLER: &[&str] = &[
        "the",
        "and",
        "for",
        "you",
        "your",
        "yours",
        "that",
        "this",
        "these",
        "those",
        "them",
        "they",
        "its",
        "it's",
        "with",
        "from",
        "into",
        "then",
        "than",
        "there",
        "here",
        "what",
        "when",
        "which",
        "who",
        "nothing",
        "anything",
        "something",
        "everything",
        "else",
        "again",
        "ever",
        "never",
        "always",
        "don't",
        "dont",
        "not",
        "all",
        "any",
        "some",
        "one",
        "ones",
        "thing",
        "things",
        "stuff",
        "way",
        "just",
        "now",
        "yet",
        "also",
        "too",
        "very",
        "really",
        "much",
        "more",
        "less",
        "we're",
        "you're",
        "i'm",
        "that's",
        "done",
        "okay",
        "please",
        "thanks",
        "thank",
        "sure",
        "will",
        "would",
        "should",
        "could",
        "can",
        "can't",
        "cannot",
        "must",
        "may",
        "might",
        "have",
        "has",
        "had",
        "was",
        "were",
        "are",
        "been",
        "being",
        "get",
        "got",
        "let",
        "let's",
        "about",
        "like",
        "did",
        "does",
        "doing",
        "again",
        "our",
        "ours",
        "his",
        "her",
        "him",
        "she",
        "his",
        "how",
        "why",
        "where",
        "lesson",
        "rule",
        "remember",
        "make",
        "avoid",
    ];
    const CJK_FILLER: &str = "这那它他她我你们的了吗呢吧啊呀么样个些就都也再还又是在有不要别会能";
    let mut score = 0.0;
    let word_char = |c: char| c.is_alphanumeric() || matches!(c, '\'' | '’' | '.' | '-' | '_');
    // One buffer for the ASCII words, most of them: a lowered copy of each
    // word was most of this function's time.
    let mut lw = String::new();
    for w in text.split(|c: char| !word_char(c)) {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        if w.is_ascii() {
            lw.clear();
            lw.push_str(w);
            lw.make_ascii_lowercase();
        } else {
            lw = w.to_lowercase().replace('’', "'");
        }
        if lw.chars().count() >= 3
            && lw.chars().all(|c| !is_cjk(c))
            && !FILLER.contains(&lw.as_str())
        {
            score += 1.0;
        }
    }
    for c in text.chars() {
        if is_cjk(c) && !CJK_FILLER.contains(c) {
            score += 0.5;
        }
    }
    score
}

/// ASCII lower case, byte for byte: the rule patterns are written in lower
/// case and matched on this, so a match's offsets hold in the original.
/// (Case-insensitive patterns cost 2 to 4 times as much to compile, and
/// the per-prompt hook compiles them whenever a prompt may state a rule.)
pub(crate) fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

pub(crate) fn is_cjk(c: char) -> bool {
    crate::memory::words::terms::is_cjk(c)
}

pub(crate) fn capitalise(t: &str) -> String {
    let mut chars = t.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one pass finds what a search for each break finds.
    #[test]
    fn clause_starts_are_where_each_break_ends() {
        let searched = |s: &str| {
            let mut starts = vec![0];
            for b in CLAUSE_BREAKS {
                starts.extend(s.match_indices(b).map(|(i, m)| i + m.len()));
            }
            starts.sort_unstable();
            starts.dedup();
            starts
        };
        for s in [
            "I ran it outside a transaction; always wrap the batch.",
            "Note: never push — open a PR instead, then merge",
            "a -- -- b",
            "x: y: z",
            "不要，以后；下次：好的，a, b",
            "an en dash – here and — there—and here",
            "no break at all",
            "",
            ";;; ,,, ::",
        ] {
            assert_eq!(clause_starts(s), searched(s), "{s:?}");
        }
    }

    /// A rule after a clause break is read from its clause, whatever the
    /// case of the words before it.
    #[test]
    fn a_rule_is_found_after_its_narrative_in_any_case() {
        for s in [
            "I RAN THE MIGRATION OUTSIDE A TRANSACTION; from now on, always wrap migrations in one.",
            "I ran the migration outside a transaction; From Now On, always wrap migrations in one.",
        ] {
            let r = stated_rule(s, Origin::User).expect(s);
            assert_eq!(r.text, "Always wrap migrations in one.", "{s}");
        }
    }
}
