#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! The credential scrubber: every token format it knows becomes [FILTERED] (true positives),
//! and what merely looks technical stays (the false positives it must avoid). Then a file full
//! of real-looking secrets through read_file and search_files.

use crate::picoclaw_support;

use fsgate_core::text::redact::{FILTERED, redact};
use picoclaw_support::Pico;
use serde_json::json;

/// (text, the secret in it).
const SECRETS: &[(&str, &str)] = &[
    (
        "Authorization: Bearer 8f2kQ0pZx7LmN3vB9cR1tY6w",
        "8f2kQ0pZx7LmN3vB9cR1tY6w",
    ),
    (
        "curl -H 'authorization: bearer abcDEF123ghiJKL456mno'",
        "abcDEF123ghiJKL456mno",
    ),
    (
        "token=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ),
    (
        "OPENAI_API_KEY=sk-proj-4fG7hJ2kL9mN3bV6cX8zQ1wE5rT0yU",
        "sk-proj-4fG7hJ2kL9mN3bV6cX8zQ1wE5rT0yU",
    ),
    (
        "openai.api_key = \"sk-9x8Y7w6V5u4T3s2R1q0PzOnMlKjIhGfE\"",
        "sk-9x8Y7w6V5u4T3s2R1q0PzOnMlKjIhGfE",
    ),
    (
        "ANTHROPIC_API_KEY=sk-ant-api03-Zx81kLpQ2vB7nM4cR9tY0wE3uI6oP5aS",
        "sk-ant-api03-Zx81kLpQ2vB7nM4cR9tY0wE3uI6oP5aS",
    ),
    (
        "stripe: rk_live_51HcT2kB8mN4vQ9zX3wL7pR0s",
        "rk_live_51HcT2kB8mN4vQ9zX3wL7pR0s",
    ),
    (
        "git clone https://ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R@github.com/o/r",
        "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",
    ),
    (
        "GITHUB_TOKEN: github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
    ),
    (
        "gho_16C7e42F292c6912E7710c838347Ae178B4a ok",
        "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    ),
    (
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "AKIAIOSFODNN7EXAMPLE",
    ),
    ("role ASIAY34FZKBOKMUTVV7A assumed", "ASIAY34FZKBOKMUTVV7A"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "SLACK_BOT_TOKEN=xoxb-2134567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "xoxb-2134567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    (
        "webhook: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    (
        "maps_key: AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    ),
    (
        "client_secret=GOCSPX-4bM8zQ1wE5rT0yU3iO7pA2sD6fG",
        "GOCSPX-4bM8zQ1wE5rT0yU3iO7pA2sD6fG",
    ),
    (
        "SESSION_SECRET=Zk9pQ2mX7vB4nL8cR1tY6wE3uI0oP5aSd",
        "Zk9pQ2mX7vB4nL8cR1tY6wE3uI0oP5aSd",
    ),
    (
        "\"private_token\": \"q8R3x7P2mV5nB9kL4cZ1wT6yH0jG3fDs\"",
        "q8R3x7P2mV5nB9kL4cZ1wT6yH0jG3fDs",
    ),
];

/// Text that must come back unchanged.
const KEPT: &[&str] = &[
    "The quick brown fox jumps over the lazy dog, again and again and again.",
    "fn getUserAccountSettingsFromRemoteServerV2(id: u64) -> Result<Settings>",
    "class AbstractSingletonProxyFactoryBean1Impl extends BaseFactory {}",
    "const handleHTTPRequestWithRetryAndBackoff3Times = async () => {};",
    "let kubernetesIoApiCoreV1PodSpecContainers0Image = spec.image;",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "md5 d41d8cd98f00b204e9800998ecf8427e and SHA512 cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
    "request id 550e8400-e29b-41d4-a716-446655440000 failed",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "import sklearn  # pip install sk-learn scikit-learn",
    "<div class=\"sk-spinner-double-bounce rk-loading-indicator\">",
    "See RFC 6750 for the Bearer token usage and the bearer scheme.",
    "/usr/local/lib/python3.11/site-packages/numpy/core/_multiarray_umath.py",
    "https://github.com/openai/codex/blob/main/codex-rs/apply-patch/src/lib.rs",
    "my_very_long_snake_case_variable_name_for_the_2024_release = True",
    "AKIA is the prefix of AWS access key IDs; ghp_ the prefix of GitHub tokens.",
    "version = \"1.2.3-alpha.4+build.5678\"",
];

#[test]
fn every_token_format_is_filtered() {
    let mut missed = Vec::new();
    for (text, secret) in SECRETS {
        let out = redact(text);
        if out.contains(secret) || !out.contains(FILTERED) {
            missed.push(format!("{text}\n  -> {out}"));
        }
    }
    assert!(missed.is_empty(), "not filtered:\n{}", missed.join("\n"));
}

#[test]
fn identifiers_prose_and_hex_hashes_are_kept() {
    let mut changed = Vec::new();
    for text in KEPT {
        let out = redact(text);
        if out != *text {
            changed.push(format!("{text}\n  -> {out}"));
        }
    }
    assert!(changed.is_empty(), "changed:\n{}", changed.join("\n"));
}

#[test]
fn the_bearer_word_stays_and_only_the_credential_goes() {
    assert_eq!(
        redact("Authorization: Bearer 8f2kQ0pZx7LmN3vB9cR1tY6w"),
        "Authorization: Bearer [FILTERED]"
    );
    assert_eq!(
        redact("x = 'AKIAIOSFODNN7EXAMPLE'; y = 2"),
        "x = '[FILTERED]'; y = 2"
    );
}

#[test]
fn a_file_full_of_secrets_reads_and_searches_filtered() {
    let p = Pico::new();
    let mut file = String::new();
    for (text, _) in SECRETS {
        file.push_str(text);
        file.push('\n');
    }
    for text in KEPT {
        file.push_str(text);
        file.push('\n');
    }
    p.write("secrets.env", &file);
    let out = p.ok("read_file", json!({"path": "secrets.env"}));
    for (_, secret) in SECRETS {
        assert!(!out.contains(secret), "read_file leaked {secret}");
    }
    for text in KEPT {
        assert!(out.contains(text), "read_file lost {text}");
    }
    let out = p.ok("search_files", json!({"pattern": "", "limit": 200}));
    for (_, secret) in SECRETS {
        assert!(!out.contains(secret), "search_files leaked {secret}");
    }
    assert_eq!(out.matches("[FILTERED]").count(), SECRETS.len(), "{out}");
    let p = Pico::lines();
    p.write("secrets.env", &file);
    let out = p.ok(
        "read_file",
        json!({"path": "secrets.env", "start_line": 4, "max_lines": 1}),
    );
    assert!(out.contains("\n4|OPENAI_API_KEY=[FILTERED]\n"), "{out}");
}
