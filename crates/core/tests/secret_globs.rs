//! Issue 17 item 10: every profile takes the coder profile's non-accessible globs in its own
//! configuration (gg's and sgpt's TOML `[access] non_accessible_globs`, qwen's settings.json
//! `context.fileFiltering.nonAccessibleGlobs`, picoclaw's `tools.non_accessible_globs`), off
//! unless configured, and the access layer keeps the files they match out of every read,
//! search, tree, listing, glob and write — gg's unconfined workspace included.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::path::Path;

use fsgate_core::config::picoclaw::PicoclawConfig;
use fsgate_core::{GgConfig, Options, QwenConfig, SgptConfig, ToolOutput, Workspace};
use serde_json::{Value, json};

const SECRET: &str = "sk_live_do_not_show_4242";

/// A workspace with `.env`, `.env.local`, `config/.ENV.prod`, `keys/server.pem` holding the
/// secret, and `src/app.py` and `README.md` that do not.
fn tree(root: &Path) {
    for (rel, text) in [
        (".env", format!("API_KEY={SECRET}\n")),
        (".env.local", format!("API_KEY={SECRET}\n")),
        ("config/.ENV.prod", format!("API_KEY={SECRET}\n")),
        ("keys/server.pem", format!("-----BEGIN {SECRET}-----\n")),
        (
            "src/app.py",
            "api_key = os.environ['API_KEY']\n".to_string(),
        ),
        ("README.md", "Set API_KEY in .env\n".to_string()),
    ] {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

const GLOBS: &str = r#"["**/.env", "**/.env.*", "**/*.pem", "**/*.key"]"#;

struct Fx {
    dir: tempfile::TempDir,
    ws: Workspace,
}

impl Fx {
    fn open(f: impl FnOnce(&mut Options)) -> Fx {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        tree(&root);
        let mut options = Options::new(&root);
        f(&mut options);
        let ws = Workspace::open(options).unwrap();
        Fx { dir, ws }
    }

    fn root(&self) -> std::path::PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.ws.call(tool, args).unwrap()
    }

    /// The call's whole text (content and structured), which must not show the secret.
    fn text(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        let mut text = out.text_content();
        if let Some(s) = &out.structured {
            text.push_str(&s.to_string());
        }
        assert!(
            !text.contains(SECRET),
            "{tool} {args} showed the secret: {text}"
        );
        text
    }

    fn refused(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        let text = out.text_content();
        assert!(out.is_error, "{tool} {args} was not refused: {text}");
        assert!(!text.contains(SECRET), "{text}");
        text
    }

    fn unchanged(&self) {
        for rel in [".env", ".env.local", "config/.ENV.prod"] {
            assert_eq!(
                std::fs::read_to_string(self.root().join(rel)).unwrap(),
                format!("API_KEY={SECRET}\n"),
                "{rel}"
            );
        }
    }
}

/// No secret file's name in a listing or tree text.
fn hides_names(text: &str) {
    for name in [".env\n", ".env.local", ".ENV.prod", "server.pem"] {
        assert!(!text.contains(name), "{name:?} listed in {text}");
    }
}

// ---------------------------------------------------------------------------------------------
// gg

fn gg(jail: bool) -> Fx {
    let config = GgConfig::parse(
        &format!("[access]\nnon_accessible_globs = {GLOBS}\n"),
        "gg.toml",
    )
    .unwrap();
    Fx::open(|o| {
        o.profile = config.into();
        o.jail = jail;
    })
}

#[test]
fn gg_unconfined_and_jailed_hide_secrets_from_every_tool() {
    for jail in [false, true] {
        let fx = gg(jail);
        for path in [
            ".env",
            ".env.local",
            "config/.ENV.prod",
            "keys/server.pem",
            "./src/../.env",
        ] {
            let err = fx.refused("read_file", json!({"path": path}));
            assert!(err.contains("not accessible"), "{err}");
        }
        // An absolute path is refused the same way.
        let abs = fx.root().join(".env").to_string_lossy().into_owned();
        fx.refused("read_file", json!({"path": abs}));
        let found = fx.text("search", json!({"query": "API_KEY"}));
        assert!(
            found.contains("src/app.py") && found.contains("README.md"),
            "{found}"
        );
        assert!(!found.contains(".env.local"), "{found}");
        fx.text("search", json!({"query": "sk_live"}));
        hides_names(&fx.text("list_dir", json!({})));
        hides_names(&fx.text("list_dir", json!({"path": "keys"})));
        hides_names(&fx.text("tree", json!({})));
        fx.refused(
            "write_file",
            json!({"path": ".env", "content": "API_KEY=x\n"}),
        );
        fx.refused(
            "write_file",
            json!({"path": "new/.env.test", "content": "x\n"}),
        );
        assert!(!fx.root().join("new/.env.test").exists());
        fx.refused(
            "edit_file",
            json!({"path": ".env.local", "old_string": "API_KEY", "new_string": "KEY"}),
        );
        fx.unchanged();
        // Everything else works as before.
        assert!(
            fx.text("read_file", json!({"path": "README.md"}))
                .contains("Set API_KEY")
        );
        // A link to a secret is refused as the secret is (its name stays listable).
        std::os::unix::fs::symlink(".env", fx.root().join("innocent.txt")).unwrap();
        fx.refused("read_file", json!({"path": "innocent.txt"}));
        fx.refused(
            "write_file",
            json!({"path": "innocent.txt", "content": "x\n"}),
        );
        fx.unchanged();
    }
}

#[test]
fn gg_without_the_setting_shows_them_as_before() {
    let fx = Fx::open(|_| {});
    let out = fx.call("read_file", json!({"path": ".env"}));
    assert!(!out.is_error && out.text_content().contains(SECRET));
}

// ---------------------------------------------------------------------------------------------
// qwen

fn qwen() -> Fx {
    let config = QwenConfig::parse(
        &format!(r#"{{"context": {{"fileFiltering": {{"nonAccessibleGlobs": {GLOBS}}}}}}}"#),
        "settings.json",
    )
    .unwrap();
    Fx::open(|o| {
        o.profile = config.into();
    })
}

#[test]
fn qwen_hides_secrets_from_every_tool() {
    let fx = qwen();
    let abs = |rel: &str| fx.root().join(rel).to_string_lossy().into_owned();
    for rel in [".env", ".env.local", "keys/server.pem"] {
        fx.refused("read_file", json!({"path": abs(rel)}));
    }
    let found = fx.text("grep_search", json!({"pattern": "api_key"}));
    assert!(
        found.contains("src/app.py") && found.contains("README.md"),
        "{found}"
    );
    assert!(!found.contains(".env.local"), "{found}");
    hides_names(&fx.text("glob", json!({"pattern": "**/*"})));
    hides_names(&fx.text("glob", json!({"pattern": "**/.env*"})));
    hides_names(&fx.text("list_directory", json!({"path": abs(".")})));
    fx.refused(
        "write_file",
        json!({"file_path": abs(".env"), "content": "API_KEY=x\n"}),
    );
    fx.refused(
        "edit",
        json!({"file_path": abs(".env.local"), "old_string": "API_KEY", "new_string": "K"}),
    );
    fx.unchanged();
}

// ---------------------------------------------------------------------------------------------
// picoclaw

fn picoclaw() -> Fx {
    let config = PicoclawConfig::parse(
        &format!(r#"{{"tools": {{"non_accessible_globs": {GLOBS}}}}}"#),
        "config.json",
        &|_| None,
    )
    .unwrap();
    Fx::open(|o| {
        o.profile = config.into();
    })
}

#[test]
fn picoclaw_hides_secrets_from_every_tool() {
    let fx = picoclaw();
    for path in [".env", ".env.local", "keys/server.pem", "missing/.env"] {
        let err = fx.refused("read_file", json!({"path": path}));
        assert!(err.starts_with("not-accessible: "), "{err}");
    }
    let found = fx.text("search_files", json!({"pattern": "API_KEY"}));
    assert!(
        found.contains("src/app.py") && found.contains("README.md"),
        "{found}"
    );
    assert!(!found.contains(".env.local"), "{found}");
    hides_names(&fx.text("search_files", json!({"pattern": "", "target": "files"})));
    hides_names(&fx.text(
        "search_files",
        json!({"pattern": ".env", "target": "files"}),
    ));
    hides_names(&fx.text("list_dir", json!({"path": "."})));
    hides_names(&fx.text("list_dir", json!({"path": "keys"})));
    fx.refused(
        "write_file",
        json!({"path": ".env", "content": "API_KEY=x\n", "overwrite": true}),
    );
    fx.refused(
        "append_file",
        json!({"path": ".env.local", "content": "X=1\n"}),
    );
    fx.refused(
        "edit_file",
        json!({"path": ".env.local", "old_text": "API_KEY", "new_text": "K"}),
    );
    fx.unchanged();
}

// ---------------------------------------------------------------------------------------------
// sgpt

fn sgpt() -> Fx {
    let config = SgptConfig::parse(
        &format!("[access]\nnon_accessible_globs = {GLOBS}\n"),
        "sgpt.toml",
    )
    .unwrap();
    Fx::open(|o| {
        o.profile = config.into();
    })
}

#[test]
fn sgpt_hides_secrets_from_reads_and_writes() {
    let fx = sgpt();
    let out = fx.text(
        "read_files",
        json!({"paths": [".env", "README.md", "keys/server.pem"]}),
    );
    assert!(out.contains("Set API_KEY"), "{out}");
    assert!(out.contains("not accessible"), "{out}");
    fx.refused(
        "replace",
        json!({"path": ".env", "patches": [{"search": "API_KEY", "replace": "K"}]}),
    );
    fx.unchanged();
}

// ---------------------------------------------------------------------------------------------
// configuration

#[test]
fn every_profile_names_a_glob_that_does_not_compile_by_its_place() {
    let bad = r#"["**/.env", "**/[.pem"]"#;
    let err =
        GgConfig::parse(&format!("[access]\nnon_accessible_globs = {bad}\n"), "g").unwrap_err();
    assert_eq!(
        err.problems[0].key, "access.non_accessible_globs[1]",
        "{err}"
    );
    let err =
        SgptConfig::parse(&format!("[access]\nnon_accessible_globs = {bad}\n"), "s").unwrap_err();
    assert_eq!(
        err.problems[0].key, "access.non_accessible_globs[1]",
        "{err}"
    );
    let err = QwenConfig::parse(
        &format!(r#"{{"context": {{"fileFiltering": {{"nonAccessibleGlobs": {bad}}}}}}}"#),
        "q",
    )
    .unwrap_err();
    assert_eq!(
        err.problems[0].key, "context.fileFiltering.nonAccessibleGlobs[1]",
        "{err}"
    );
    let err = PicoclawConfig::parse(
        &format!(r#"{{"tools": {{"non_accessible_globs": {bad}}}}}"#),
        "p",
        &|_| None,
    )
    .unwrap_err();
    assert_eq!(
        err.problems[0].key, "tools.non_accessible_globs[1]",
        "{err}"
    );
    assert!(
        err.problems[0].message.contains("is not a glob pattern"),
        "{err}"
    );
}
