//! HTML built so that text cannot become markup.
//!
//! Everything the pages show (lesson text, cues, transcripts, file names,
//! search snippets) is hostile input. [`Html`] has two ways in: [`Html::s`]
//! takes only `&'static str`, so markup can come only from literals in this
//! crate, and [`Html::t`] escapes whatever it is given. There is no third.
//! The page layout is an embedded template whose slots take [`Html`].

use std::fmt::Display;

/// Markup, assembled from literals and escaped text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Html(String);

/// Values that print no markup characters (numbers), shown unescaped.
pub trait Plain: Display {}
impl Plain for u16 {}
impl Plain for u32 {}
impl Plain for u64 {}
impl Plain for usize {}
impl Plain for i64 {}

impl Html {
    pub fn new() -> Html {
        Html(String::with_capacity(4096))
    }

    /// Markup from a literal.
    pub fn s(&mut self, markup: &'static str) -> &mut Html {
        self.0.push_str(markup);
        self
    }

    /// Text, escaped (for element content and for quoted attribute values).
    pub fn t(&mut self, text: impl AsRef<str>) -> &mut Html {
        escape_into(&mut self.0, text.as_ref());
        self
    }

    /// A number.
    pub fn n(&mut self, n: impl Plain) -> &mut Html {
        use std::fmt::Write;
        let _ = write!(self.0, "{n}");
        self
    }

    /// A score or a ratio, with `decimals` digits.
    pub fn f(&mut self, x: f64, decimals: usize) -> &mut Html {
        use std::fmt::Write;
        let _ = write!(self.0, "{x:.decimals$}");
        self
    }

    /// Markup built elsewhere with the same rules.
    pub fn h(&mut self, other: &Html) -> &mut Html {
        self.0.push_str(&other.0);
        self
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// Escapes the five characters that matter in content and in quoted
/// attributes.
pub fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// The layout every page shares (`assets/layout.html`).
const LAYOUT: &str = include_str!("assets/layout.html");

/// Which tab a page belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Overview,
    Lessons,
    Sessions,
    Search,
}

impl Tab {
    const ALL: [(Tab, &'static str, &'static str); 4] = [
        (Tab::Overview, "/", "Overview"),
        (Tab::Lessons, "/lessons", "Lessons"),
        (Tab::Sessions, "/sessions", "Sessions"),
        (Tab::Search, "/search", "Search"),
    ];
}

/// A whole page: the layout with its slots filled.
pub fn page(tab: Tab, title: &str, footer: &str, body: &Html) -> String {
    let mut nav = Html::new();
    for (t, href, label) in Tab::ALL {
        nav.s("<a href=\"").s(href).s("\"");
        if t == tab {
            nav.s(" aria-current=\"page\"");
        }
        nav.s(">").s(label).s("</a>");
    }
    let mut title_html = Html::new();
    title_html.t(title);
    let mut footer_html = Html::new();
    footer_html.t(footer);
    fill(
        LAYOUT,
        &[
            ("title", &title_html),
            ("nav", &nav),
            ("body", body),
            ("footer", &footer_html),
        ],
    )
}

/// Replaces each `{{name}}` of `template` with its slot; an unknown name is
/// left out.
fn fill(template: &str, slots: &[(&str, &Html)]) -> String {
    let mut out =
        String::with_capacity(template.len() + slots.iter().map(|s| s.1.0.len()).sum::<usize>());
    let mut rest = template;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(j) = after.find("}}") else {
            out.push_str(&rest[i..]);
            return out;
        };
        let name = &after[..j];
        if let Some((_, v)) = slots.iter().find(|(n, _)| *n == name) {
            out.push_str(v.as_str());
        }
        rest = &after[j + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_never_becomes_markup() {
        let mut h = Html::new();
        h.s("<p title=\"")
            .t("\"><script>alert('x')</script>")
            .s("\">")
            .t("a & b <img src=x onerror=alert(1)>")
            .s("</p>");
        assert_eq!(
            h.as_str(),
            "<p title=\"&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;\">a &amp; b &lt;img src=x onerror=alert(1)&gt;</p>"
        );
    }

    #[test]
    fn the_layout_gets_its_slots_and_the_current_tab() {
        let mut body = Html::new();
        body.s("<p>").t("{{title}} stays text").s("</p>");
        let page = page(Tab::Lessons, "Lessons <x>", "pms", &body);
        assert!(
            page.contains("<title>Lessons &lt;x&gt; · pms</title>"),
            "{page}"
        );
        assert!(page.contains("<a href=\"/lessons\" aria-current=\"page\">Lessons</a>"));
        assert!(
            page.contains("<p>{{title}} stays text</p>"),
            "a slot's value is not refilled"
        );
    }
}
