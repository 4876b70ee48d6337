//! Names and paths as a model sees and writes them, in every profile: names a model cannot see
//! are listed in one escaped form that every tool takes back (issue 16, item 6); paths written
//! by habit are not taken literally when they would create something, and a not-found names
//! the sibling meant (issue 17, item 4); results name the file written through a link (item 7);
//! a dangling link is called dangling, and a path that leaves the root and comes back names the
//! path inside (item 8).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use fsgate_core::{Options, Profile, ToolOutput, Workspace};
use serde_json::{Value, json};
use tempfile::TempDir;

const PROFILES: [Profile; 6] = [
    Profile::Gg,
    Profile::Coder,
    Profile::Qwen,
    Profile::Picoclaw,
    Profile::Sgpt,
    Profile::Native,
];

/// A workspace of one profile over a fresh temporary directory.
struct Ws {
    _dir: TempDir,
    root: PathBuf,
    ws: Workspace,
    profile: Profile,
}

impl Ws {
    fn new(profile: Profile) -> Ws {
        Ws::with(profile, false)
    }

    /// gg confined to its root (`--jail roots`) when `jail`.
    fn with(profile: Profile, jail: bool) -> Ws {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut options = Options::new(&root);
        options.profile = profile.into();
        options.jail = jail;
        let ws = Workspace::open(options).unwrap();
        Ws {
            _dir: dir,
            root,
            ws,
            profile,
        }
    }

    fn p(&self, rel: impl AsRef<OsStr>) -> PathBuf {
        self.root.join(rel.as_ref())
    }

    fn put(&self, rel: impl AsRef<OsStr>, bytes: &[u8]) {
        let path = self.p(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.ws.call(tool, args).unwrap()
    }

    /// The text of a call that must succeed.
    fn ok(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert!(
            !out.is_error,
            "{:?} {tool} {args} failed: {}",
            self.profile,
            out.text_content()
        );
        out.text_content()
    }

    /// The text of a call that must fail.
    fn err(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert!(
            out.is_error,
            "{:?} {tool} {args} succeeded: {}",
            self.profile,
            out.text_content()
        );
        out.text_content()
    }

    /// Every entry of the root, recursively, as bytes (to check that nothing was created).
    fn snapshot(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut stack = vec![self.root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let entry = entry.unwrap();
                let path = entry.path();
                out.push(path.as_os_str().as_bytes().to_vec());
                if entry.file_type().unwrap().is_dir() {
                    stack.push(path);
                }
            }
        }
        out.sort();
        out
    }
}

/// A JSON result of a coder function.
fn coder(ws: &Ws, tool: &str, args: Value) -> Value {
    let text = ws.ok(tool, args);
    serde_json::from_str(&text).unwrap()
}

/// The per-entry error code of coder's first batch result, if any.
fn entry_code(result: &Value) -> Option<String> {
    result["results"][0]["error"]["code"]
        .as_str()
        .map(str::to_string)
}

fn os(bytes: &[u8]) -> &OsStr {
    OsStr::from_bytes(bytes)
}

// ---------------------------------------------------------------------------------------------
// Issue 16, item 6: one escaped form, listed everywhere, accepted everywhere.

const BAD: &[u8] = b"bad\xff.txt";
const BAD_SHOWN: &str = r"bad\xff.txt";
const BIDI: &str = "evil\u{202E}txt.js";
const BIDI_SHOWN: &str = r"evil\u{202E}txt.js";
const ZERO: &str = "zw\u{200B}.ts";
const ZERO_SHOWN: &str = r"zw\u{200B}.ts";
const DIR: &[u8] = b"d\xfe";
const DIR_SHOWN: &str = r"d\xfe";

fn unseen_names(ws: &Ws) {
    ws.put(os(BAD), b"needle one\n");
    ws.put(BIDI, b"needle two\n");
    ws.put(ZERO, b"needle three\n");
    ws.put(os(&[DIR, b"/inner.txt"].concat()), b"needle four\n");
}

/// Asserts `text` shows every unseen name in its escaped form, and none raw or lossily.
fn shows_escaped(profile: Profile, what: &str, text: &str, names: &[&str]) {
    for name in names {
        assert!(
            text.contains(name),
            "{profile:?} {what} does not show {name}:\n{text}"
        );
    }
    for raw in ['\u{FFFD}', '\u{202E}', '\u{200B}'] {
        assert!(
            !text.contains(raw),
            "{profile:?} {what} shows {raw:?} raw:\n{text}"
        );
    }
}

#[test]
fn names_a_model_cannot_see_are_listed_escaped_in_every_listing_tree_search_and_glob() {
    let all = [BAD_SHOWN, BIDI_SHOWN, ZERO_SHOWN, DIR_SHOWN];
    let inner = format!("{DIR_SHOWN}/inner.txt");
    for profile in PROFILES {
        let ws = Ws::new(profile);
        unseen_names(&ws);
        match profile {
            Profile::Gg => {
                let list = ws.ok("list_dir", json!({}));
                shows_escaped(profile, "list_dir", &list, &all);
                let tree = ws.ok("tree", json!({}));
                shows_escaped(profile, "tree", &tree, &all);
                assert!(
                    tree.contains(&format!("{DIR_SHOWN}/\n  inner.txt")),
                    "{tree}"
                );
                let found = ws.ok("search", json!({"query": "needle"}));
                shows_escaped(profile, "search", &found, &[BAD_SHOWN, BIDI_SHOWN, &inner]);
                assert!(
                    found.contains(&format!("{BAD_SHOWN}:1:needle one")),
                    "{found}"
                );
            }
            Profile::Coder => {
                let list = coder(&ws, "list-folder", json!({"path": "."}));
                let names: Vec<&str> = list["entries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e["name"].as_str().unwrap())
                    .collect();
                for name in all {
                    assert!(names.contains(&name), "{names:?}");
                }
                let tree = coder(&ws, "tree", json!({"path": "."}));
                let dir = tree["root"]["children"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|n| n["name"] == DIR_SHOWN)
                    .unwrap();
                assert_eq!(dir["children"][0]["name"], "inner.txt", "{tree}");
                let found = coder(&ws, "search", json!({"path": ".", "query": "needle"}));
                let paths: Vec<String> = found["content_matches"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m["path"].as_str().unwrap().to_string())
                    .collect();
                let joined = paths.join("\n");
                shows_escaped(profile, "search", &joined, &[BAD_SHOWN, BIDI_SHOWN, &inner]);
                let named = coder(
                    &ws,
                    "search",
                    json!({"path": ".", "query": "txt", "search_paths": true, "search_content": false}),
                );
                shows_escaped(profile, "path search", &named.to_string(), &[]);
            }
            Profile::Qwen => {
                let list = ws.ok("list_directory", json!({"path": ws.root}));
                shows_escaped(profile, "list_directory", &list, &all);
                let glob = ws.ok("glob", json!({"pattern": "**/*"}));
                shows_escaped(
                    profile,
                    "glob",
                    &glob,
                    &[BAD_SHOWN, BIDI_SHOWN, ZERO_SHOWN, &inner],
                );
                let grep = ws.ok("grep_search", json!({"pattern": "needle"}));
                shows_escaped(
                    profile,
                    "grep_search",
                    &grep,
                    &[BAD_SHOWN, BIDI_SHOWN, &inner],
                );
            }
            Profile::Picoclaw => {
                let list = ws.ok("list_dir", json!({"path": "."}));
                shows_escaped(profile, "list_dir", &list, &all);
                let found = ws.ok("search_files", json!({"pattern": "needle"}));
                shows_escaped(
                    profile,
                    "search_files",
                    &found,
                    &[BAD_SHOWN, BIDI_SHOWN, &inner],
                );
                let files = ws.ok("search_files", json!({"pattern": ".", "target": "files"}));
                shows_escaped(
                    profile,
                    "search_files files",
                    &files,
                    &[BAD_SHOWN, ZERO_SHOWN],
                );
            }
            // sgpt lists nothing itself (its shell does).
            _ => {}
        }
    }
}

#[test]
fn the_shown_form_of_a_name_reaches_it_in_every_read_write_edit_move_and_delete() {
    for profile in PROFILES {
        let ws = Ws::new(profile);
        unseen_names(&ws);
        let inner = format!("{DIR_SHOWN}/inner.txt");
        let inner_raw = os(&[DIR, b"/inner.txt"].concat()).to_os_string();
        match profile {
            Profile::Gg => {
                assert_eq!(
                    ws.ok("read_file", json!({"path": BAD_SHOWN})),
                    "needle one\n"
                );
                assert_eq!(ws.ok("read_file", json!({"path": inner})), "needle four\n");
                let edited = ws.ok(
                    "edit_file",
                    json!({"path": BIDI_SHOWN, "old_string": "two", "new_string": "2"}),
                );
                assert!(
                    edited.starts_with(&format!("Edited {BIDI_SHOWN}:")),
                    "{edited}"
                );
                assert_eq!(std::fs::read(ws.p(BIDI)).unwrap(), b"needle 2\n");
                ws.ok("write_file", json!({"path": BAD_SHOWN, "content": "new\n"}));
                assert_eq!(std::fs::read(ws.p(os(BAD))).unwrap(), b"new\n");
                assert_eq!(ws.ok("list_dir", json!({"path": DIR_SHOWN})), "inner.txt");
            }
            Profile::Coder => {
                let read = coder(&ws, "read-file", json!({"path": BAD_SHOWN}));
                assert_eq!(read["content"], "needle one\n");
                assert!(
                    read["path"].as_str().unwrap().ends_with(BAD_SHOWN),
                    "{read}"
                );
                let update = coder(
                    &ws,
                    "update-file",
                    json!({"files": [{"path": ZERO_SHOWN, "ops": [
                        {"op": "replace", "pattern": "three", "replacement": "3"}]}]}),
                );
                assert_eq!(update["results"][0]["success"], true, "{update}");
                assert_eq!(std::fs::read(ws.p(ZERO)).unwrap(), b"needle 3\n");
                let created = coder(
                    &ws,
                    "create-file",
                    json!({"files": [{"path": inner, "content": "over\n", "overwrite": true}]}),
                );
                assert_eq!(created["results"][0]["success"], true, "{created}");
                assert_eq!(std::fs::read(ws.p(&inner_raw)).unwrap(), b"over\n");
                let moved = coder(
                    &ws,
                    "move",
                    json!({"files": [{"from": BAD_SHOWN, "to": "plain.txt"}]}),
                );
                assert_eq!(moved["results"][0]["success"], true, "{moved}");
                assert!(!ws.p(os(BAD)).exists() && ws.p("plain.txt").is_file());
                let deleted = coder(&ws, "delete-file", json!({"paths": [BIDI_SHOWN]}));
                assert_eq!(deleted["results"][0]["removed"], true, "{deleted}");
                assert!(!ws.p(BIDI).exists());
            }
            Profile::Qwen => {
                let abs = format!("{}/{BAD_SHOWN}", ws.root.display());
                let read = ws.ok("read_file", json!({"path": abs}));
                assert!(read.contains("needle one"), "{read}");
                ws.ok(
                    "edit",
                    json!({"file_path": BIDI_SHOWN, "old_string": "two", "new_string": "2"}),
                );
                assert_eq!(std::fs::read(ws.p(BIDI)).unwrap(), b"needle 2\n");
                ws.ok("write_file", json!({"file_path": inner, "content": "w\n"}));
                assert_eq!(std::fs::read(ws.p(&inner_raw)).unwrap(), b"w\n");
            }
            Profile::Picoclaw => {
                let read = ws.ok("read_file", json!({"path": BAD_SHOWN}));
                assert!(read.contains("needle one"), "{read}");
                ws.ok(
                    "edit_file",
                    json!({"path": BIDI_SHOWN, "old_text": "two", "new_text": "2"}),
                );
                assert_eq!(std::fs::read(ws.p(BIDI)).unwrap(), b"needle 2\n");
                ws.ok(
                    "write_file",
                    json!({"path": ZERO_SHOWN, "content": "z\n", "overwrite": true}),
                );
                assert_eq!(std::fs::read(ws.p(ZERO)).unwrap(), b"z\n");
                ws.ok("append_file", json!({"path": inner, "content": "more\n"}));
                assert_eq!(
                    std::fs::read(ws.p(&inner_raw)).unwrap(),
                    b"needle four\nmore\n"
                );
            }
            Profile::Sgpt => {
                let read = ws.ok("read_files", json!({"paths": [BAD_SHOWN, inner]}));
                assert!(
                    read.contains("needle one") && read.contains("needle four"),
                    "{read}"
                );
                ws.ok(
                    "replace",
                    json!({"path": BIDI_SHOWN, "patches": [{"search": "two", "replace": "2"}]}),
                );
                assert_eq!(std::fs::read(ws.p(BIDI)).unwrap(), b"needle 2\n");
                ws.ok(
                    "diff",
                    json!({"path": ZERO_SHOWN, "diff": "@@\n-needle three\n+needle 3\n"}),
                );
                assert_eq!(std::fs::read(ws.p(ZERO)).unwrap(), b"needle 3\n");
            }
            Profile::Native => {
                let read = ws.ok("read_file", json!({"path": BAD_SHOWN}));
                assert!(read.contains("1\tneedle one"), "{read}");
                ws.ok(
                    "edit",
                    json!({"path": BIDI_SHOWN, "edits": [{"old_text": "two", "new_text": "2"}]}),
                );
                assert_eq!(std::fs::read(ws.p(BIDI)).unwrap(), b"needle 2\n");
                ws.ok(
                    "write_file",
                    json!({"path": inner, "content": "w\n", "mode": "overwrite"}),
                );
                assert_eq!(std::fs::read(ws.p(&inner_raw)).unwrap(), b"w\n");
                ws.ok("move", json!({"from": BAD_SHOWN, "to": "plain.txt"}));
                assert!(!ws.p(os(BAD)).exists() && ws.p("plain.txt").is_file());
                ws.ok("delete", json!({"path": ZERO_SHOWN}));
                assert!(!ws.p(ZERO).exists());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Issue 17, item 4: paths written by habit.

/// Each profile's call that would create `path` with `content`.
fn create_call(profile: Profile, path: &str) -> (&'static str, Value) {
    match profile {
        Profile::Gg => ("write_file", json!({"path": path, "content": "x\n"})),
        Profile::Coder => (
            "create-file",
            json!({"files": [{"path": path, "content": "x\n"}]}),
        ),
        Profile::Qwen => ("write_file", json!({"file_path": path, "content": "x\n"})),
        Profile::Picoclaw => ("write_file", json!({"path": path, "content": "x\n"})),
        Profile::Sgpt => ("diff", json!({"path": path, "diff": "@@\n+x\n"})),
        Profile::Native => ("write_file", json!({"path": path, "content": "x\n"})),
    }
}

/// The text of the refusal of a create call (coder refuses per entry).
fn refused_create(ws: &Ws, path: &str) -> String {
    let (tool, args) = create_call(ws.profile, path);
    if ws.profile == Profile::Coder {
        let out = coder(ws, tool, args);
        assert_eq!(entry_code(&out).as_deref(), Some("C210"), "{path}: {out}");
        return out["results"][0]["error"]["message"]
            .as_str()
            .unwrap()
            .to_string();
    }
    ws.err(tool, args)
}

#[test]
fn a_path_written_by_habit_is_refused_on_create_in_every_profile_and_nothing_is_made() {
    for profile in PROFILES {
        let ws = Ws::new(profile);
        ws.put("x.ts", b"x\n");
        let url = format!("file://{}/src/y.ts", ws.root.display());
        let cases: [(&str, &str); 6] = [
            ("~/new.ts", "~ is not expanded"),
            (&url, "pass the path itself"),
            ("source\\x.ts", "pass source/x.ts"),
            ("x.ts ", "ends with a space"),
            (" x.ts", "starts with a space"),
            ("src/ y.ts", "starts with a space"),
        ];
        let before = ws.snapshot();
        for (path, meaning) in cases {
            let text = refused_create(&ws, path);
            assert!(text.contains(meaning), "{profile:?} {path:?}: {text}");
            assert!(
                text.contains(&format!("\"{path}\"")),
                "{profile:?}: the path is quoted so its spaces show: {text}"
            );
            if profile == Profile::Gg {
                assert!(text.starts_with("invalid-argument: "), "{text}");
            }
        }
        assert_eq!(ws.snapshot(), before, "{profile:?} created something");
    }
}

#[test]
fn existing_entries_with_habitual_names_stay_reachable_in_every_profile() {
    for profile in PROFILES {
        let ws = Ws::new(profile);
        ws.put("~/home.ts", b"tilde\n");
        ws.put("a\\b.ts", b"backslash\n");
        ws.put("x.ts ", b"trailing\n");
        ws.put(" x.ts", b"leading\n");
        ws.put("x.ts", b"plain\n");
        for (path, content) in [
            ("~/home.ts", "tilde"),
            ("a\\b.ts", "backslash"),
            ("x.ts ", "trailing"),
            (" x.ts", "leading"),
            ("x.ts", "plain"),
        ] {
            let text = match profile {
                Profile::Gg | Profile::Picoclaw | Profile::Native => {
                    ws.ok("read_file", json!({"path": path}))
                }
                Profile::Coder => coder(&ws, "read-file", json!({"path": path}))["content"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                Profile::Qwen => ws.ok("read_file", json!({"path": path})),
                Profile::Sgpt => ws.ok("read_files", json!({"paths": [path]})),
            };
            assert!(text.contains(content), "{profile:?} {path:?}: {text}");
        }
        // A new file inside an existing folder named ~ is a plain create.
        let (tool, args) = create_call(profile, "~/made.ts");
        let out = ws.call(tool, args);
        assert!(!out.is_error, "{profile:?}: {}", out.text_content());
        assert!(ws.p("~/made.ts").is_file(), "{profile:?}");
    }
}

#[test]
fn listings_show_an_edge_space_and_the_shown_form_reaches_it() {
    let ws = Ws::new(Profile::Gg);
    ws.put("x.ts ", b"trailing\n");
    ws.put("x.ts", b"plain\n");
    assert_eq!(ws.ok("list_dir", json!({})), "x.ts\nx.ts\\u{20}");
    assert_eq!(
        ws.ok("read_file", json!({"path": "x.ts\\u{20}"})),
        "trailing\n"
    );
}

#[test]
fn a_not_found_names_a_sibling_that_differs_only_in_extension_case_or_percent_encoding() {
    for profile in PROFILES {
        let ws = Ws::new(profile);
        ws.put("src/app.ts", b"a\n");
        ws.put("README.md", b"r\n");
        ws.put("my file.txt", b"m\n");
        for (asked, meant, how) in [
            ("src/app.js", "src/app.ts", "only in its extension"),
            ("README.MD", "README.md", "only in case"),
            ("my%20file.txt", "my file.txt", "only in percent-encoding"),
            ("Src/app.ts", "src/app.ts", "only in case"),
        ] {
            let text = match profile {
                Profile::Coder => {
                    let out = ws.call("read-file", json!({"path": asked}));
                    assert!(out.is_error, "{}", out.text_content());
                    let v: Value = serde_json::from_str(&out.text_content()).unwrap();
                    assert_eq!(v["code"], "C211", "{v}");
                    v["message"].as_str().unwrap().to_string()
                }
                // sgpt reports a file it cannot read inside its result.
                Profile::Sgpt => ws.ok("read_files", json!({"paths": [asked]})),
                _ => ws.err("read_file", json!({"path": asked})),
            };
            assert!(
                text.contains(&format!("{meant} (it exists and differs {how})")),
                "{profile:?} {asked}: {text}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Issue 17, item 7: results name the file written through a link.

#[test]
fn every_profile_s_write_and_edit_result_names_the_target_of_a_link() {
    for profile in PROFILES {
        let ws = Ws::new(profile);
        ws.put("src/app.ts", b"let a = 1;\n");
        symlink("src/app.ts", ws.p("app.ts")).unwrap();
        let edit = match profile {
            Profile::Gg => ws.ok(
                "edit_file",
                json!({"path": "app.ts", "old_string": "1", "new_string": "2"}),
            ),
            Profile::Coder => ws.ok(
                "update-file",
                json!({"files": [{"path": "app.ts", "ops": [
                    {"op": "replace", "pattern": "1", "replacement": "2"}]}]}),
            ),
            Profile::Qwen => ws.ok(
                "edit",
                json!({"file_path": "app.ts", "old_string": "1", "new_string": "2"}),
            ),
            Profile::Picoclaw => ws.ok(
                "edit_file",
                json!({"path": "app.ts", "old_text": "1", "new_text": "2"}),
            ),
            Profile::Sgpt => ws.ok(
                "replace",
                json!({"path": "app.ts", "patches": [{"search": "1", "replace": "2"}]}),
            ),
            Profile::Native => ws.ok(
                "edit",
                json!({"path": "app.ts", "edits": [{"old_text": "1", "new_text": "2"}]}),
            ),
        };
        assert_eq!(std::fs::read(ws.p("src/app.ts")).unwrap(), b"let a = 2;\n");
        assert!(
            std::fs::symlink_metadata(ws.p("app.ts"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        if profile == Profile::Coder {
            // coder names the canonical target itself.
            let root = ws.root.display().to_string();
            assert!(edit.contains(&format!("{root}/src/app.ts")), "{edit}");
        } else {
            assert!(
                edit.contains("app.ts through the symbolic link to src/app.ts"),
                "{profile:?}: {edit}"
            );
        }
        let (tool, mut args) = create_call(profile, "app.ts");
        if profile == Profile::Picoclaw {
            args["overwrite"] = json!(true);
        }
        if profile == Profile::Coder {
            args["files"][0]["overwrite"] = json!(true);
        }
        if profile == Profile::Sgpt {
            args = json!({"path": "app.ts", "diff": "@@\n-let a = 2;\n+x\n"});
        }
        if profile == Profile::Native {
            args["mode"] = json!("overwrite");
        }
        let write = ws.ok(tool, args);
        assert_eq!(std::fs::read(ws.p("src/app.ts")).unwrap(), b"x\n");
        if profile != Profile::Coder {
            assert!(
                write.contains("app.ts through the symbolic link to src/app.ts"),
                "{profile:?}: {write}"
            );
        }
        // A path with no link in it says nothing of links.
        let plain = ws.ok(tool, create_call(profile, "plain.ts").1);
        assert!(!plain.contains("symbolic link"), "{plain}");
    }
}

// ---------------------------------------------------------------------------------------------
// Issue 17, item 8: dangling links, and paths that leave the root and come back.

#[test]
fn a_dangling_link_inside_the_root_is_called_dangling_with_its_target_in_every_profile() {
    for profile in PROFILES {
        for jail in [false, true] {
            if jail && profile != Profile::Gg {
                continue;
            }
            let ws = Ws::with(profile, jail);
            std::fs::create_dir_all(ws.p("node_modules/.bin")).unwrap();
            symlink("../typescript/bin/tsc", ws.p("node_modules/.bin/tsc")).unwrap();
            let path = "node_modules/.bin/tsc";
            let text = match profile {
                Profile::Coder => {
                    let out = ws.call("read-file", json!({"path": path}));
                    let v: Value = serde_json::from_str(&out.text_content()).unwrap();
                    assert_eq!(v["code"], "C211", "{v}");
                    v["message"].as_str().unwrap().to_string()
                }
                Profile::Sgpt => ws.ok("read_files", json!({"paths": [path]})),
                _ => ws.err("read_file", json!({"path": path})),
            };
            assert!(
                text.contains(
                    "node_modules/.bin/tsc is a symbolic link to ../typescript/bin/tsc \
                     (node_modules/typescript/bin/tsc), which does not exist: the link dangles"
                ),
                "{profile:?} jail {jail}: {text}"
            );
            assert!(!text.contains("outside"), "{text}");
            // The link is listed, and a write through it creates nothing.
            let before = ws.snapshot();
            let (tool, args) = create_call(profile, path);
            let out = ws.call(tool, args);
            let shown = out.text_content();
            assert!(shown.contains("dangles"), "{profile:?}: {shown}");
            assert_eq!(ws.snapshot(), before);
        }
    }
}

#[test]
fn a_path_that_leaves_the_root_and_comes_back_is_refused_with_the_path_inside() {
    for profile in PROFILES {
        let ws = Ws::with(profile, true);
        ws.put("src/x.ts", b"x\n");
        let name = ws.root.file_name().unwrap().to_str().unwrap().to_string();
        let back = format!("../{name}/src/x.ts");
        let text = match profile {
            Profile::Coder => {
                let out = ws.call("read-file", json!({"path": back}));
                let v: Value = serde_json::from_str(&out.text_content()).unwrap();
                assert_eq!(v["code"], "C215", "{v}");
                v["message"].as_str().unwrap().to_string()
            }
            Profile::Sgpt => ws.ok("read_files", json!({"paths": [back]})),
            _ => ws.err("read_file", json!({"path": back})),
        };
        assert!(
            text.contains("pass the path inside the root instead: src/x.ts"),
            "{profile:?}: {text}"
        );
    }
}

#[test]
fn escaped_paths_that_name_nothing_are_not_created_from_escapes() {
    let ws = Ws::new(Profile::Gg);
    let before = ws.snapshot();
    let text = ws.err(
        "write_file",
        json!({"path": "new\\xff.txt", "content": "x"}),
    );
    assert!(text.contains("escape sequence"), "{text}");
    assert_eq!(ws.snapshot(), before);
    // Inside an existing folder shown escaped, a plain new name is created.
    std::fs::create_dir(ws.p(os(DIR))).unwrap();
    ws.ok(
        "write_file",
        json!({"path": format!("{DIR_SHOWN}/new.txt"), "content": "x"}),
    );
    assert!(Path::new(&ws.p(os(&[DIR, b"/new.txt"].concat()))).is_file());
}

#[test]
fn a_write_through_a_folder_link_names_the_file_written_confined_or_not() {
    for jail in [false, true] {
        let ws = Ws::with(Profile::Gg, jail);
        ws.put("real/x.ts", b"1\n");
        symlink("real", ws.p("linked")).unwrap();
        let edited = ws.ok(
            "edit_file",
            json!({"path": "linked/x.ts", "old_string": "1", "new_string": "2"}),
        );
        assert!(
            edited.starts_with(
                "Edited linked/x.ts through the symbolic link to real/x.ts: replaced line 1"
            ),
            "jail {jail}: {edited}"
        );
        let created = ws.ok(
            "write_file",
            json!({"path": "linked/new.ts", "content": "n\n"}),
        );
        assert!(
            created.starts_with("Created linked/new.ts through the symbolic link to real/new.ts:"),
            "jail {jail}: {created}"
        );
        assert!(ws.p("real/new.ts").is_file());
        let plain = ws.ok(
            "edit_file",
            json!({"path": "real/x.ts", "old_string": "2", "new_string": "3"}),
        );
        assert!(plain.starts_with("Edited real/x.ts: "), "{plain}");
    }
}

#[test]
fn a_near_miss_is_named_only_for_the_path_it_belongs_to() {
    let ws = Ws::new(Profile::Coder);
    ws.put("a.ts", b"a\n");
    ws.put("other/b.md", b"b\n");
    let out = coder(&ws, "read-file", json!({"paths": ["a.js", "b.txt"]}));
    let first = out["results"][0]["error"]["message"].as_str().unwrap();
    let second = out["results"][1]["error"]["message"].as_str().unwrap();
    assert!(first.contains("did you mean a.ts"), "{first}");
    assert!(!second.contains("did you mean"), "{second}");
}

#[test]
fn coder_moves_a_file_into_a_folder_shown_escaped() {
    let ws = Ws::new(Profile::Coder);
    std::fs::create_dir(ws.p(os(DIR))).unwrap();
    ws.put("a.txt", b"a\n");
    let moved = coder(
        &ws,
        "move",
        json!({"files": [{"from": "a.txt", "to": format!("{DIR_SHOWN}/a.txt")}]}),
    );
    assert_eq!(moved["results"][0]["success"], true, "{moved}");
    assert!(ws.p(os(&[DIR, b"/a.txt"].concat())).is_file());
    assert!(
        moved["results"][0]["to"]
            .as_str()
            .unwrap()
            .ends_with(&format!("{DIR_SHOWN}/a.txt"))
    );
}
