//! Configuration parsing: the first byte picks the parser (gg TOML, coder YAML, qwen JSON,
//! picoclaw JSON, sgpt TOML), the rest is the file's text. Any text must give a configuration
//! or a refusal listing problems, never a panic.
#![no_main]
// The harness (libFuzzer's macro, fixture set-up) does its own file I/O, outside fsgate's access layer.
#![allow(clippy::disallowed_methods)]

use fsgate_core::config::qwen::QwenConfig;
use fsgate_core::{CoderConfig, GgConfig, PicoclawConfig, SgptConfig};
use libfuzzer_sys::fuzz_target;

/// A fixed environment, so `${VAR}` expansion is exercised deterministically.
fn env(key: &str) -> Option<String> {
    match key {
        "HOME" => Some("/home/user".to_string()),
        "EMPTY" => Some(String::new()),
        "ROOT" => Some("./".to_string()),
        _ => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let refused = match which % 5 {
        0 => GgConfig::parse(&text, "fuzz.toml").err(),
        1 => CoderConfig::parse(&text, "fuzz.yaml", &env).err(),
        2 => QwenConfig::parse(&text, "settings.json").err(),
        3 => PicoclawConfig::parse(&text, "config.json", &env).err(),
        _ => SgptConfig::parse(&text, "config.toml").err(),
    };
    if let Some(error) = refused {
        // A refusal names at least one problem and renders.
        let shown = error.to_string();
        assert!(!shown.is_empty());
    }
});
