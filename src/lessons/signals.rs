//! Learning signals in an assistant reply: deterministic patterns, English
//! and Chinese, for six kinds of experience worth keeping.
//!
//! | kind | what it looks like |
//! |---|---|
//! | correction | the agent admits the user corrected it ("You're right", "我搞错了") |
//! | insight | something understood ("It turns out", "原来") |
//! | error | a root cause found ("failed because", "问题出在") |
//! | cognitive-shift | an assumption overturned ("I had assumed … but", "之前以为") |
//! | method | a better way found ("A simpler approach", "更好的办法") |
//! | anti-pattern | a thing not to do ("Never …", "不要…") |
//!
//! Each sentence (outside code blocks) is tested; the first kind that
//! matches wins and the sentence becomes the candidate learning. Precision
//! matters more than recall: every signal costs the user a confirmation, so
//! common look-alikes ("Don't worry", "You're right to ask") are excluded.
//! tests/signals_quality.rs measures both on a labelled set.

use std::sync::LazyLock;

use regex::Regex;

pub const KINDS: [&str; 6] = [
    "correction",
    "insight",
    "error",
    "cognitive-shift",
    "method",
    "anti-pattern",
];

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
            r"(?i)^(?:you(?:'|’)?re (?:absolutely |quite )?(?:right|correct)(?: —| -|,|\.|!|:|$)|good catch|my (?:mistake|bad|apologies)|(?:ah,? )?that(?:'|’)?s on me|sorry about that|i was wrong|i stand corrected|i made (?:a|an) (?:mistake|error)|i misunderstood|(?:sorry|apologies),? (?:i|that) (?:was|is) (?:wrong|incorrect|mistaken)|thanks for (?:the )?correct)",
        ),
        p(
            "correction",
            r"(你说得对|你是对的|我搞错了|我弄错了|是我的错|我理解错了|纠正得对|我之前(说|写)错了)",
        ),
        p(
            "error",
            r"(?i)(root cause|(?:the|this) (?:bug|error|issue|problem|failure|crash|outage) (?:was|is) (?:caused by|due to|in )|was caused by|(?:failed|fails|failing|broke|crashed|crashes) because|the culprit (?:is|was)|the reason (?:it|this|the \w+) (?:broke|failed|crashed|hung|timed out|stopped))",
        ),
        p(
            "error",
            r"(根本原因|问题出在|错误原因|原因是|(失败|报错|崩溃|出错)是因为|导致了?(失败|报错|崩溃))",
        ),
        p(
            "cognitive-shift",
            r"(?i)(i (?:had )?(?:assumed|thought|believed|expected) .{0,120}(?:but|however|actually|in fact)|contrary to (?:what i|my)|i was (?:wrong to assume|assuming)|not .{0,50} as i (?:thought|assumed|expected|believed))",
        ),
        p(
            "cognitive-shift",
            r"(之前以为|我以为.{0,40}(其实|实际上|但是?)|本以为.{0,40}(其实|实际上|但是?)|并不是.{0,30}而是)",
        ),
        p(
            "method",
            r"(?i)(a (?:much )?(?:better|simpler|faster|cleaner|safer|more reliable) (?:way|approach|method|option)|the trick (?:is|was)|what (?:worked|works) (?:was|is)|the (?:right|correct|proper) (?:way|approach) (?:is|was)|the fix (?:is|was) to|this approach works)",
        ),
        p(
            "method",
            r"(更好的(方法|办法|做法|方式)|更简单的(方法|办法|做法)|技巧是|诀窍是|有效的(方法|做法)是|正确的做法是|解决办法是|(这个|这种)(方法|办法|做法)更(好|稳|快|简单|可靠))",
        ),
        p(
            "insight",
            r"(?i)(i (?:just )?(?:realized|realised|noticed that|learned that)|it turns out|turns out that|the key (?:insight|point|lesson) (?:is|here)|lesson learned|the real (?:reason|issue|problem) (?:is|was)|^interesting(?:ly)?[,:])",
        ),
        // 原来 is "it turns out", but 原来的 is "the original"
        p(
            "insight",
            r"(原来[^的]|我意识到|关键在于|真正的(原因|问题)是|学到了)",
        ),
        p(
            "anti-pattern",
            r"(?i)(^(?:(?:next time|in (?:the )?future|going forward|from now on),? )?(?:never|don(?:'|’)?t|do not|avoid) \w|should (?:never|not|n(?:'|’)t) \w|must (?:never|not) \w|is an anti-?pattern|is (?:a )?bad (?:practice|idea)|it(?:'|’)?s a (?:common )?mistake to)",
        ),
        p(
            "anti-pattern",
            r"(^(以后|下次)?[，,]?(不要|别|切忌|避免|千万不要|禁止)|不应该|不能再|是反模式|是错误的做法)",
        ),
    ]
});

/// Sentences that look like a signal but are not one.
static EXCLUDE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:don(?:'|’)?t|do not|never) (?:worry|hesitate|mind|forget to (?:ask|reach)|be afraid)|you(?:'|’)?re right to (?:ask|wonder|check|question)|(不要担心|别担心|别客气|不客气)",
    )
    .expect("valid")
});

/// A signal found in a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub kind: &'static str,
    pub sentence: String,
}

/// Every signal in `message`, in order, one per sentence.
pub fn detect(message: &str) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    for sentence in sentences(message) {
        let s = sentence
            .trim()
            .trim_start_matches(['-', '*', '>', ' '])
            .trim();
        let n = s.chars().count();
        if !(8..=500).contains(&n) || EXCLUDE.is_match(s) {
            continue;
        }
        if let Some(p) = PATTERNS.iter().find(|p| p.re.is_match(s))
            && !out.iter().any(|f| f.sentence == s)
        {
            out.push(Found {
                kind: p.kind,
                sentence: s.to_string(),
            });
        }
    }
    out
}

/// Sentences of prose: code blocks and inline code are skipped, text is cut
/// at sentence ends (`.`, `!`, `?`, `。`, `！`, `？`) and line breaks.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || line.starts_with("    ") {
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(msg: &str) -> Vec<&'static str> {
        detect(msg).into_iter().map(|f| f.kind).collect()
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
    }

    #[test]
    fn several_signals_in_one_message() {
        let msg = "You're right, I misread the log. The job failed because the disk was full. Next time, avoid writing temp files to /.";
        assert_eq!(kinds(msg), ["correction", "error", "anti-pattern"]);
    }
}
