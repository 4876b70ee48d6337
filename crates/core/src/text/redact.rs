//! Credential redaction: well-known token formats and long machine-generated high-entropy
//! strings are replaced with [`FILTERED`] before text reaches a model, while ordinary
//! identifiers, prose and hex hashes stay visible.
//!
//! What is replaced:
//!
//! - `Bearer <token>` (the token; the word stays), and `Authorization: Basic <credentials>`,
//!   each on one line;
//! - JSON Web Tokens (`eyJ….eyJ….…`);
//! - `sk-`/`rk-` style secret keys (OpenAI `sk-…`, `sk-proj-…`, Anthropic `sk-ant-…`, Stripe
//!   `sk_live_…`/`rk_test_…`) whose body looks machine-made;
//! - GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`);
//! - AWS access key IDs (`AKIA…`, `ASIA…` and the other four-letter prefixes, 20 characters);
//! - Slack tokens (`xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`, `xapp-`) and webhook URLs;
//! - Google API keys (`AIza…`), OAuth client secrets (`GOCSPX-…`) and access tokens (`ya29.…`);
//! - private-key PEM bodies line by line, through the next rule;
//! - any other run of 32 to 512 characters of `[A-Za-z0-9+/=_-]` that looks machine-generated:
//!   it mixes upper case, lower case and digits at a Shannon entropy of at least 3.5 bits per
//!   character, and its lower-case runs are shorter than 2.8 characters on average (or than
//!   4.5 with under 20 % vowels) — identifiers are made of words, whose runs are longer and
//!   about 40 % vowels; or it mixes letters of one case with at least a sixth digits at an
//!   entropy of 4.2 bits per character or more.
//!
//! What stays: hex strings of any length (hashes, commit ids, UUIDs: only hex digits and
//! hyphens), identifiers (camelCase, snake_case: few class changes), prose, paths, and runs
//! longer than 512 characters (embedded base64 data is content, not a credential).
//!
//! Redaction works on text alone, so line numbers and byte offsets computed on the raw file
//! still hold for the lines around a masked value. It is line-local: no rule looks across a line
//! break, so a text redacts to the same lines as each of its lines redacted on its own (a read
//! window, a search line and a whole file agree), and a masked value never spans lines.
//! [`redact_spans`] also reports which raw spans were masked, so that text quoting the redacted
//! form can be mapped back to the raw bytes (see [`crate::text::restore`]). Redacting redacted
//! text changes nothing.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// What a masked value becomes.
pub const FILTERED: &str = "[FILTERED]";

/// The shortest run the entropy rule considers.
const MIN_MACHINE_LEN: usize = 32;
/// The longest run the entropy rule considers; longer runs are data, not credentials.
const MAX_MACHINE_LEN: usize = 512;

struct Rule {
    regex: Option<Regex>,
    /// Which capture group to mask (0: the whole match).
    group: usize,
    /// An extra test on the masked text (the whole match must look like a credential).
    check: fn(&str) -> bool,
}

fn always(_: &str) -> bool {
    true
}

fn rule(pattern: &str, group: usize, check: fn(&str) -> bool) -> Rule {
    Rule {
        regex: Regex::new(pattern).ok(),
        group,
        check,
    }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        // JWTs first: a Bearer header usually carries one.
        rule(
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
            0,
            always,
        ),
        rule(
            r"(?i)\bbearer[ \t]+([A-Za-z0-9\-._~+/]+=*)",
            1,
            bearer_token,
        ),
        rule(
            r"(?i)\bauthorization[ \t]*[:=][ \t]*[\x22']?basic[ \t]+([A-Za-z0-9+/]{8,}=*)",
            1,
            always,
        ),
        rule(r"\bgithub_pat_[A-Za-z0-9_]{22,}", 0, always),
        rule(r"\bgh[pousr]_[A-Za-z0-9]{30,}", 0, always),
        rule(
            r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\b",
            0,
            always,
        ),
        rule(r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 0, always),
        rule(r"\bxapp-[0-9]-[A-Za-z0-9-]{10,}", 0, always),
        rule(
            r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]{20,}",
            0,
            always,
        ),
        rule(r"\bAIza[0-9A-Za-z_-]{35}", 0, always),
        rule(r"\bGOCSPX-[A-Za-z0-9_-]{20,}", 0, always),
        rule(r"\bya29\.[0-9A-Za-z_-]{20,}", 0, always),
        rule(
            r"\b(?:sk|rk)(?:-(?:proj|ant|live|test|svcacct|admin)|_(?:live|test))?[-_][A-Za-z0-9_-]{16,}",
            0,
            secret_key,
        ),
    ]
});

static MACHINE_RUN: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/=_-]{32,}").ok());

/// One masked value: its span in the raw text and the span of its placeholder in the redacted
/// text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mask {
    /// The masked bytes of the raw text.
    pub raw: Range<usize>,
    /// The placeholder's bytes in the redacted text.
    pub shown: Range<usize>,
}

/// A text redacted, with the alignment between it and the raw text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redacted {
    /// The redacted text.
    pub text: String,
    /// The masked values, in text order; they neither overlap nor span lines.
    pub masks: Vec<Mask>,
}

impl Redacted {
    /// The raw offset of the redacted offset `shown`; `None` inside a placeholder (past its
    /// first byte and before its end).
    pub fn raw_offset(&self, shown: usize) -> Option<usize> {
        let (mut raw, mut placeholders) = (0, 0);
        for mask in &self.masks {
            if shown <= mask.shown.start {
                break;
            }
            if shown < mask.shown.end {
                return None;
            }
            raw += mask.raw.len();
            placeholders += mask.shown.len();
        }
        (shown + raw).checked_sub(placeholders)
    }

    /// The raw span of the redacted span `shown`; `None` when either end cuts a placeholder.
    pub fn raw_range(&self, shown: Range<usize>) -> Option<Range<usize>> {
        Some(self.raw_offset(shown.start)?..self.raw_offset(shown.end)?)
    }
}

/// `text` with every credential-looking value replaced by [`FILTERED`]; borrowed when nothing
/// was replaced.
pub fn redact(text: &str) -> Cow<'_, str> {
    shown(text, true)
}

/// [`redact`] with the token formats only, without the rule for machine-generated runs.
///
/// For text assembled around content that was redacted on its own: a machine-made run is
/// measured over every character of `[A-Za-z0-9+/=_-]` around it, so in assembled text it can
/// reach across a `-` or `+` the assembler put there (`path-12-` before a search context line,
/// the `+` of a diff line) and mask it with the value. The token formats start at a word
/// boundary with a fixed prefix, which such a separator does not change.
pub fn redact_tokens(text: &str) -> Cow<'_, str> {
    shown(text, false)
}

fn shown(text: &str, machine: bool) -> Cow<'_, str> {
    let segs = segments(text, machine);
    if segs.iter().any(|s| matches!(s, Seg::Hide(_))) {
        Cow::Owned(render(text, &segs).0)
    } else {
        Cow::Borrowed(text)
    }
}

/// A piece of the text being redacted: raw bytes kept, or raw bytes shown as [`FILTERED`].
#[derive(Clone, Debug)]
enum Seg {
    Keep(Range<usize>),
    Hide(Range<usize>),
}

impl Seg {
    fn shown_len(&self) -> usize {
        match self {
            Seg::Keep(r) => r.len(),
            Seg::Hide(_) => FILTERED.len(),
        }
    }
}

/// [`redact`], reporting every masked span (see [`Redacted`]).
pub fn redact_spans(text: &str) -> Redacted {
    let (text, masks) = render(text, &segments(text, true));
    Redacted { text, masks }
}

/// The text cut into kept and masked pieces, rule by rule (each rule sees the text the earlier
/// ones left); `machine`: with the rule for machine-generated runs.
fn segments(text: &str, machine: bool) -> Vec<Seg> {
    let mut segs = if text.is_empty() {
        Vec::new()
    } else {
        vec![Seg::Keep(0..text.len())]
    };
    let mut current: Cow<'_, str> = Cow::Borrowed(text);
    for rule in RULES.iter() {
        let Some(regex) = &rule.regex else { continue };
        let hits: Vec<Range<usize>> = regex
            .captures_iter(&current)
            .filter_map(|caps| caps.get(rule.group))
            .filter(|m| (rule.check)(m.as_str()))
            .map(|m| m.range())
            .collect();
        if !hits.is_empty() {
            segs = hide(text, &segs, &hits);
            current = Cow::Owned(render(text, &segs).0);
        }
    }
    if let Some(regex) = MACHINE_RUN.as_ref().filter(|_| machine) {
        let hits: Vec<Range<usize>> = regex
            .find_iter(&current)
            .filter(|m| looks_machine_made(m.as_str()))
            .map(|m| m.range())
            .collect();
        if !hits.is_empty() {
            segs = hide(text, &segs, &hits);
        }
    }
    segs
}

/// The text the segments show, and their masks.
fn render(text: &str, segs: &[Seg]) -> (String, Vec<Mask>) {
    let mut out = String::with_capacity(text.len());
    let mut masks = Vec::new();
    for seg in segs {
        match seg {
            Seg::Keep(r) => out.push_str(&text[r.clone()]),
            Seg::Hide(r) => {
                let start = out.len();
                out.push_str(FILTERED);
                masks.push(Mask {
                    raw: r.clone(),
                    shown: start..out.len(),
                });
            }
        }
    }
    (out, masks)
}

/// The segments with the spans `hits` (ascending, disjoint offsets of the text the segments
/// show) hidden too. A hit that reaches into a placeholder hides the whole of its value.
fn hide(text: &str, segs: &[Seg], hits: &[Range<usize>]) -> Vec<Seg> {
    // Where each segment starts in the shown text.
    let mut starts = Vec::with_capacity(segs.len());
    let mut at = 0;
    for seg in segs {
        starts.push(at);
        at += seg.shown_len();
    }
    // The raw offset of the shown offset `pos`, rounded outwards in a placeholder.
    let raw_of = |pos: usize, end: bool| -> usize {
        let i = starts.partition_point(|&s| s <= pos).saturating_sub(1);
        match segs.get(i) {
            Some(Seg::Keep(r)) => (r.start + (pos - starts[i])).min(r.end),
            Some(Seg::Hide(r)) if pos == starts[i] => r.start,
            Some(Seg::Hide(r)) => {
                if end {
                    r.end
                } else {
                    r.start
                }
            }
            None => text.len(),
        }
    };
    let mut hidden: Vec<Range<usize>> = segs
        .iter()
        .filter_map(|s| match s {
            Seg::Hide(r) => Some(r.clone()),
            Seg::Keep(_) => None,
        })
        .chain(
            hits.iter()
                .map(|h| raw_of(h.start, false)..raw_of(h.end, true)),
        )
        .filter(|r| !r.is_empty())
        .collect();
    hidden.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(hidden.len());
    for r in hidden {
        match merged.last_mut() {
            Some(last) if r.start < last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    let mut out = Vec::with_capacity(merged.len() * 2 + 1);
    let mut kept = 0;
    for r in merged {
        if kept < r.start {
            out.push(Seg::Keep(kept..r.start));
        }
        kept = r.end;
        out.push(Seg::Hide(r));
    }
    if kept < text.len() {
        out.push(Seg::Keep(kept..text.len()));
    }
    out
}

/// Whether `text` holds anything [`redact`] would replace.
pub fn has_secret(text: &str) -> bool {
    matches!(redact(text), Cow::Owned(_))
}

fn bearer_token(token: &str) -> bool {
    if token.contains(FILTERED) {
        return false;
    }
    let has_digit = token.bytes().any(|b| b.is_ascii_digit());
    let has_upper = token.bytes().any(|b| b.is_ascii_uppercase());
    let has_lower = token.bytes().any(|b| b.is_ascii_lowercase());
    (token.len() >= 8 && has_digit) || (token.len() >= 20 && has_upper && has_lower)
}

/// An `sk-`/`rk-` key: its body (after the prefix) mixes classes the way generated keys do,
/// unlike `sk-learn` or a CSS class such as `sk-spinner-double-bounce`.
fn secret_key(key: &str) -> bool {
    let mut body = key.get(3..).unwrap_or("");
    for word in ["proj", "ant", "live", "test", "svcacct", "admin"] {
        if let Some(rest) = body.strip_prefix(word)
            && rest.starts_with(['-', '_'])
        {
            body = &rest[1..];
            break;
        }
    }
    let digits = body.bytes().filter(u8::is_ascii_digit).count();
    let letters = body.bytes().filter(u8::is_ascii_alphabetic).count();
    let separators = body.bytes().filter(|b| matches!(b, b'-' | b'_')).count();
    body.len() >= 16 && digits >= 2 && letters >= 4 && separators * 5 <= body.len()
}

/// The entropy rule (see the module documentation).
pub fn looks_machine_made(run: &str) -> bool {
    let run = run.trim_end_matches('=');
    let len = run.len();
    if !(MIN_MACHINE_LEN..=MAX_MACHINE_LEN).contains(&len) {
        return false;
    }
    let bytes = run.as_bytes();
    // Hex digests, ids and UUIDs stay.
    if bytes.iter().all(|b| b.is_ascii_hexdigit() || *b == b'-') {
        return false;
    }
    let upper = bytes.iter().any(u8::is_ascii_uppercase);
    let lower = bytes.iter().any(u8::is_ascii_lowercase);
    let digits = bytes.iter().filter(|b| b.is_ascii_digit()).count();
    if upper && lower && digits > 0 {
        // Identifiers are made of words: long lower-case runs. Generated strings switch class
        // every couple of characters.
        let run = mean_lower_run(bytes);
        return entropy(bytes) >= 3.5 && (run < 2.8 || (run < 4.5 && vowel_share(bytes) < 0.2));
    }
    (upper || lower) && digits * 6 >= len && entropy(bytes) >= 4.2
}

/// The share of vowels among the lower-case letters (1 when there are none): about 0.4 in
/// words, 0.19 in random letters.
fn vowel_share(bytes: &[u8]) -> f64 {
    let lower = bytes.iter().filter(|b| b.is_ascii_lowercase()).count();
    if lower == 0 {
        return 1.0;
    }
    let vowels = bytes
        .iter()
        .filter(|b| matches!(b, b'a' | b'e' | b'i' | b'o' | b'u'))
        .count();
    vowels as f64 / lower as f64
}

/// The mean length of the maximal runs of lower-case letters (0 when there are none).
fn mean_lower_run(bytes: &[u8]) -> f64 {
    let mut runs = 0usize;
    let mut letters = 0usize;
    let mut inside = false;
    for b in bytes {
        if b.is_ascii_lowercase() {
            letters += 1;
            if !inside {
                runs += 1;
                inside = true;
            }
        } else {
            inside = false;
        }
    }
    if runs == 0 {
        0.0
    } else {
        letters as f64 / runs as f64
    }
}

/// Shannon entropy in bits per byte.
fn entropy(bytes: &[u8]) -> f64 {
    let mut counts = [0usize; 256];
    for &b in bytes {
        counts[usize::from(b)] += 1;
    }
    let n = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_formats_are_filtered() {
        for (input, expected) in [
            (
                "Authorization: Bearer abc123def456ghi789",
                "Authorization: Bearer [FILTERED]",
            ),
            (
                "key = \"sk-proj-Ab3dEf9hIj2kLmN0pQrS7tUv\"",
                "key = \"[FILTERED]\"",
            ),
            (
                "token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
                "token [FILTERED]",
            ),
            (
                "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
                "AWS_ACCESS_KEY_ID=[FILTERED]",
            ),
        ] {
            assert_eq!(redact(input), expected, "{input}");
        }
    }

    #[test]
    fn the_token_rules_leave_a_frame_around_a_random_run_alone() {
        let framed = "src/a.env-2-x9K2mQ7vB3nL8cR1tY6wE3uI0oP5";
        assert!(matches!(
            redact("x9K2mQ7vB3nL8cR1tY6wE3uI0oP5"),
            Cow::Borrowed(_)
        ));
        assert_eq!(redact(framed), "src/a.[FILTERED]");
        assert!(matches!(redact_tokens(framed), Cow::Borrowed(_)));
        assert_eq!(
            redact_tokens("a.env-2-GITHUB=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
            "a.env-2-GITHUB=[FILTERED]"
        );
    }

    #[test]
    fn ordinary_text_is_kept_borrowed() {
        for input in [
            "fn getUserAccountSettingsFromRemoteServerV2() {}",
            "commit 3f786850e387550fdab836ed7e6dc881de23001b",
            "the Bearer token scheme is described in RFC 6750",
            "import sklearn; pip install sk-learn",
            "class=\"sk-spinner-double-bounce\"",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            "550e8400-e29b-41d4-a716-446655440000",
        ] {
            assert!(matches!(redact(input), Cow::Borrowed(_)), "{input}");
        }
    }
}
