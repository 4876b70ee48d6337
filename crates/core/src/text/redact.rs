//! Credential redaction: well-known token formats and long machine-generated high-entropy
//! strings are replaced with [`FILTERED`] before text reaches a model, while ordinary
//! identifiers, prose and hex hashes stay visible.
//!
//! What is replaced:
//!
//! - `Bearer <token>` (the token; the word stays), and `Authorization: Basic <credentials>`;
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
//! still hold for the lines around a masked value.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

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
        rule(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]+=*)", 1, bearer_token),
        rule(
            r"(?i)\bauthorization\s*[:=]\s*[\x22']?basic\s+([A-Za-z0-9+/]{8,}=*)",
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

/// `text` with every credential-looking value replaced by [`FILTERED`]; borrowed when nothing
/// was replaced.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut current: Cow<'_, str> = Cow::Borrowed(text);
    for rule in RULES.iter() {
        let Some(regex) = &rule.regex else { continue };
        let hit = regex.captures_iter(&current).any(|caps| {
            caps.get(rule.group)
                .is_some_and(|m| (rule.check)(m.as_str()))
        });
        if !hit {
            continue;
        }
        let replaced = regex
            .replace_all(&current, |caps: &Captures<'_>| mask(caps, rule))
            .into_owned();
        current = Cow::Owned(replaced);
    }
    if let Some(regex) = MACHINE_RUN.as_ref()
        && regex
            .find_iter(&current)
            .any(|m| looks_machine_made(m.as_str()))
    {
        let replaced = regex
            .replace_all(&current, |caps: &Captures<'_>| {
                let run = &caps[0];
                if looks_machine_made(run) {
                    FILTERED.to_string()
                } else {
                    run.to_string()
                }
            })
            .into_owned();
        current = Cow::Owned(replaced);
    }
    current
}

/// Whether `text` holds anything [`redact`] would replace.
pub fn has_secret(text: &str) -> bool {
    matches!(redact(text), Cow::Owned(_))
}

fn mask(caps: &Captures<'_>, rule: &Rule) -> String {
    let whole = &caps[0];
    let Some(target) = caps.get(rule.group) else {
        return whole.to_string();
    };
    if !(rule.check)(target.as_str()) {
        return whole.to_string();
    }
    let start = target.start() - caps.get(0).map_or(0, |m| m.start());
    let end = start + target.len();
    format!("{}{FILTERED}{}", &whole[..start], &whole[end..])
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
