//! The layer rule, checked: data flows transport → surface → engine (`ops`) → access, and a
//! layer never reaches up. No module of `ops/`, `access/` or `text/` (nor the call context, the
//! session and the error type they share) names `surface` or `config`; `access/` and `text/` do
//! not name the engine; only `ops/shell.rs` starts a process. clippy's `disallowed-methods` and
//! `disallowed-types` (clippy.toml) ban raw file I/O and `std::process::Command`; this test also
//! checks that the local allowances of those bans stay in their one home.
//!
//! The sources are read as tokens (comments and string literals dropped), so a path written in
//! any form is seen: `use crate::{error::Result, surface::CallContext}`,
//! `super::super::config::Config`, or a path inside an expression. Each failure names the file,
//! the line and the path.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

/// One use of a forbidden path.
#[derive(Debug, PartialEq, Eq)]
struct Finding {
    line: usize,
    path: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

/// The tokens of `source` with their 1-based lines; comments, strings and character literals
/// are left out.
fn tokens(source: &str) -> Vec<(Tok, usize)> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let ident_char = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if chars[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                }
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    if chars.get(i) == Some(&'\n') {
                        line += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            '\'' => {
                // A character literal ('a', '\n', '\u{7f}', '{'), or a lifetime ('a).
                if next == Some('\\') {
                    i += 2;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if chars.get(i + 2) == Some(&'\'') {
                    i += 3;
                } else {
                    out.push((Tok::Punct('\''), line));
                    i += 1;
                }
            }
            c if ident_char(c) => {
                let start = i;
                // A raw string: r"…", r#"…"#, br#"…"#.
                let after_prefix = match (c, next) {
                    ('r', _) => Some(i + 1),
                    ('b', Some('r')) => Some(i + 2),
                    _ => None,
                };
                if let Some(mut j) = after_prefix {
                    let mut hashes = 0;
                    while chars.get(j) == Some(&'#') {
                        hashes += 1;
                        j += 1;
                    }
                    if chars.get(j) == Some(&'"') {
                        j += 1;
                        loop {
                            match chars.get(j) {
                                None => break,
                                Some('"')
                                    if (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) =>
                                {
                                    j += 1 + hashes;
                                    break;
                                }
                                Some('\n') => line += 1,
                                Some(_) => {}
                            }
                            j += 1;
                        }
                        i = j;
                        continue;
                    }
                }
                while i < chars.len() && ident_char(chars[i]) {
                    i += 1;
                }
                out.push((Tok::Ident(chars[start..i].iter().collect()), line));
            }
            ':' if next == Some(':') => {
                out.push((Tok::Sep, line));
                i += 2;
            }
            c => {
                out.push((Tok::Punct(c), line));
                i += 1;
            }
        }
    }
    out
}

/// The paths written from `at` (which holds `crate`, `super`, `self` or `std`), use-trees
/// expanded: `crate::{a::b, c}` gives `crate::a::b` and `crate::c`.
fn expand(toks: &[(Tok, usize)], at: usize) -> Vec<Vec<String>> {
    fn tree(toks: &[(Tok, usize)], mut i: usize, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
        let mut path = prefix;
        loop {
            match toks.get(i).map(|t| &t.0) {
                Some(Tok::Ident(name)) => {
                    path.push(name.clone());
                    i += 1;
                }
                Some(Tok::Punct('*')) => {
                    path.push("*".into());
                    return (vec![path], i + 1);
                }
                Some(Tok::Punct('{')) => {
                    let mut all = Vec::new();
                    i += 1;
                    loop {
                        match toks.get(i).map(|t| &t.0) {
                            Some(Tok::Punct('}')) | None => return (all, i + 1),
                            Some(Tok::Punct(',')) => i += 1,
                            _ => {
                                let (paths, next) = tree(toks, i, path.clone());
                                all.extend(paths);
                                if next <= i {
                                    return (all, i + 1);
                                }
                                i = next;
                            }
                        }
                    }
                }
                _ => return (vec![path], i),
            }
            match toks.get(i).map(|t| &t.0) {
                Some(Tok::Sep) => i += 1,
                // `a::b as c` names `a::b`.
                Some(Tok::Ident(kw)) if kw == "as" => return (vec![path], i + 2),
                _ => return (vec![path], i),
            }
        }
    }
    tree(toks, at, Vec::new()).0
}

/// The module path of the file at `rel` (relative to `src/`): `ops/update/mod.rs` is
/// `["ops", "update"]`, `ops/edit.rs` is `["ops", "edit"]`, `lib.rs` is `[]`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && stem != "lib" && stem != "main" {
            parts.push(stem.to_string());
        }
    }
    parts
}

/// Every path in `source` (the file at `rel` under `src/`) resolved from the crate root, with
/// its line: `super::super::surface::X` in `ops/edit.rs` is `surface::X`. Paths from `std`
/// keep their `std` head.
fn crate_paths(rel: &Path, source: &str) -> Vec<(Vec<String>, usize)> {
    let toks = tokens(source);
    let file_module = module_of(rel);
    // Inline modules (`mod tests { … }`) nest the module path; each entry is the brace depth
    // its body opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let (tok, line) = &toks[i];
        match tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let (Some((Tok::Ident(name), _)), Some((Tok::Punct('{'), _))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    inline.push((name.clone(), depth));
                }
            }
            Tok::Ident(head)
                if matches!(head.as_str(), "crate" | "super" | "self" | "std")
                    && toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Sep)
                    && !(i > 0 && toks[i - 1].0 == Tok::Sep) =>
            {
                let mut here = file_module.clone();
                here.extend(inline.iter().map(|(n, _)| n.clone()));
                for path in expand(&toks, i) {
                    let mut resolved = match path[0].as_str() {
                        "crate" => Vec::new(),
                        "std" => vec!["std".to_string()],
                        _ => here.clone(),
                    };
                    let mut rest = path.iter().skip(1).peekable();
                    if path[0] == "super" {
                        resolved.pop();
                        while rest.peek().is_some_and(|s| *s == "super") {
                            rest.next();
                            resolved.pop();
                        }
                    }
                    resolved.extend(rest.filter(|s| *s != "self").cloned());
                    out.push((resolved, *line));
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The uses in `source` (the file at `rel` under `src/`) of a crate path whose first segment
/// is one of `banned`.
fn reaches(rel: &Path, source: &str, banned: &[&str]) -> Vec<Finding> {
    crate_paths(rel, source)
        .into_iter()
        .filter(|(path, _)| path.first().is_some_and(|h| banned.contains(&h.as_str())))
        .map(|(path, line)| Finding {
            line,
            path: path.join("::"),
        })
        .collect()
}

/// The places in `source` that name `std::process::Command` (or the extension trait that
/// configures one), in any form.
fn starts_processes(rel: &Path, source: &str) -> Vec<Finding> {
    let mut found: Vec<Finding> = crate_paths(rel, source)
        .into_iter()
        .filter(|(path, _)| {
            let p: Vec<&str> = path.iter().map(String::as_str).collect();
            p.starts_with(&["std", "process", "Command"])
                || p.starts_with(&["std", "process", "*"])
                || p.starts_with(&["std", "os", "unix", "process", "CommandExt"])
        })
        .map(|(path, line)| Finding {
            line,
            path: path.join("::"),
        })
        .collect();
    // `Command::new(…)` after an import this check did not see (a glob, an alias).
    let toks = tokens(source);
    for w in toks.windows(3) {
        if let [(Tok::Ident(ty), line), (Tok::Sep, _), (Tok::Ident(f), _)] = w
            && ty == "Command"
            && f == "new"
        {
            found.push(Finding {
                line: *line,
                path: "Command::new".into(),
            });
        }
    }
    found.sort_by_key(|f| f.line);
    found
}

/// The allowances of clippy's I/O and process bans in `source`, with whether each sits in test
/// code (an item or module under `#[cfg(test)]`).
fn allowances(source: &str) -> Vec<(usize, bool)> {
    let toks = tokens(source);
    let mut out = Vec::new();
    // Brace depths of the test modules we are in.
    let mut test_bodies: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    // Outer attributes seen since the last item: (line, is an allowance, is cfg(test)).
    let mut pending: Vec<(usize, bool, bool)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Punct('#') => {
                let inner = toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Punct('!'));
                let open = if inner { i + 2 } else { i + 1 };
                if toks.get(open).map(|t| &t.0) != Some(&Tok::Punct('[')) {
                    i += 1;
                    continue;
                }
                let mut j = open + 1;
                let mut nest = 1;
                let mut idents = Vec::new();
                while j < toks.len() && nest > 0 {
                    match &toks[j].0 {
                        Tok::Punct('[') => nest += 1,
                        Tok::Punct(']') => nest -= 1,
                        Tok::Ident(s) => idents.push(s.as_str()),
                        _ => {}
                    }
                    j += 1;
                }
                let allows = idents.first() == Some(&"allow")
                    && idents
                        .iter()
                        .any(|s| *s == "disallowed_methods" || *s == "disallowed_types");
                let cfg_test = idents == ["cfg", "test"];
                if inner {
                    if allows {
                        out.push((toks[i].1, !test_bodies.is_empty()));
                    }
                } else {
                    pending.push((toks[i].1, allows, cfg_test));
                }
                i = j;
                continue;
            }
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if test_bodies.last() == Some(&depth) {
                    test_bodies.pop();
                }
            }
            _ => {}
        }
        if !pending.is_empty() {
            // The attributes belong to the item that starts here.
            let test_item = pending.iter().any(|a| a.2) || !test_bodies.is_empty();
            for &(line, allows, _) in &pending {
                if allows {
                    out.push((line, test_item));
                }
            }
            pending.clear();
            if test_item && matches!(&toks[i].0, Tok::Ident(k) if k == "mod") {
                test_bodies.push(depth);
            }
        }
        i += 1;
    }
    out
}

fn src_dir(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src")
}

/// The `.rs` files under `dir`, relative to `root`, sorted.
fn rust_files(root: &Path, dir: &str) -> Vec<PathBuf> {
    fn walk(root: &Path, at: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(at) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    let start = root.join(dir);
    if start.extension().is_some_and(|e| e == "rs") {
        out.push(PathBuf::from(dir));
    } else {
        walk(root, &start, &mut out);
    }
    out.sort();
    out
}

/// Applies `check` to every file of `dirs` under `src`, and fails naming every finding.
fn check_files(
    krate: &str,
    dirs: &[&str],
    rule: &str,
    skip: &[&str],
    check: impl Fn(&Path, &str) -> Vec<Finding>,
) {
    let root = src_dir(krate);
    let mut report = Vec::new();
    let mut files = 0;
    for dir in dirs {
        for rel in rust_files(&root, dir) {
            if skip.iter().any(|s| rel == Path::new(s)) {
                continue;
            }
            files += 1;
            let source = std::fs::read_to_string(root.join(&rel)).unwrap();
            for f in check(&rel, &source) {
                report.push(format!(
                    "crates/{krate}/src/{}:{}: {}",
                    rel.display(),
                    f.line,
                    f.path
                ));
            }
        }
    }
    assert!(files > 0, "no source files found under {}", root.display());
    assert!(
        report.is_empty(),
        "{rule}; these break it:\n  {}",
        report.join("\n  ")
    );
}

/// The engine and everything below it.
const BELOW_THE_SURFACE: &[&str] = &[
    "ops",
    "access",
    "text",
    "context.rs",
    "session.rs",
    "error.rs",
];

/// The crate root's items that belong to the surface or the configuration (`lib.rs` defines
/// the workspace and its options, and re-exports the profile configurations and the surface's
/// types).
const PROFILE_LEVEL: &[&str] = &[
    "surface",
    "config",
    "Workspace",
    "Options",
    "Profile",
    "Config",
    "CoderConfig",
    "QwenConfig",
    "PicoclawConfig",
    "SgptConfig",
    "Surface",
    "ToolDef",
    "ToolOutput",
    "Content",
];

#[test]
fn no_engine_access_or_text_module_imports_the_surface_or_the_configuration() {
    check_files(
        "core",
        BELOW_THE_SURFACE,
        "ops/, access/ and text/ (and the call context, session and error they share) must not \
         name surface/ or config/: the engine returns typed results and errors, the surface words \
         them, and whatever a profile's configuration decides reaches the engine as a plain value",
        &[],
        |rel, src| reaches(rel, src, PROFILE_LEVEL),
    );
}

#[test]
fn access_and_text_do_not_import_the_engine() {
    check_files(
        "core",
        &["access", "text"],
        "access/ and text/ sit below the engine and must not name ops/, the session or the call \
         context",
        &[],
        |rel, src| reaches(rel, src, &["ops", "session", "context"]),
    );
    check_files(
        "core",
        &["text"],
        "text/ (encodings, lines, matching) sits below access and must not name it",
        &[],
        |rel, src| reaches(rel, src, &["access"]),
    );
}

#[test]
fn only_the_shell_module_starts_processes() {
    for krate in ["core", "mcp", "cli"] {
        check_files(
            krate,
            &[""],
            "processes are started only by the engine's shell module (ops/shell.rs: a surface \
             describes the program as an ops::shell::Program), so every one gets its timeout, \
             process-group kill and output cap",
            &["ops/shell.rs"],
            starts_processes,
        );
    }
}

#[test]
fn raw_io_allowances_stay_in_their_one_home() {
    // access/ is the home of file I/O, ops/shell.rs of processes; config/ reads the server's
    // own configuration files, which are not workspace I/O. Test code may set up fixtures.
    check_files(
        "core",
        &[""],
        "clippy's bans on raw std::fs and std::process::Command are allowed only in access/, \
         ops/shell.rs, config/ (the server's configuration) and test code",
        &[],
        |rel, src| {
            let home = rel.starts_with("access")
                || rel.starts_with("config")
                || rel == Path::new("ops/shell.rs");
            if home {
                return Vec::new();
            }
            allowances(src)
                .into_iter()
                .filter(|&(_, in_test)| !in_test)
                .map(|(line, _)| Finding {
                    line,
                    path: "an allowance of clippy::disallowed_*".into(),
                })
                .collect()
        },
    );
}

#[test]
fn the_layer_check_sees_grouped_nested_and_relative_paths() {
    let edit = Path::new("ops/edit.rs");
    let src = "use crate::{error::Result, surface::{CallContext, Progress}};\n\
               use super::super::config::Config;\n\
               fn f() { let _ = crate::config::coder::CoderConfig::default(); }\n\
               use crate::Workspace;\n\
               use crate::{text::lines as surface, error::ToolError};\n";
    let found = reaches(edit, src, PROFILE_LEVEL);
    let paths: Vec<(usize, &str)> = found.iter().map(|f| (f.line, f.path.as_str())).collect();
    assert_eq!(
        paths,
        vec![
            (1, "surface::CallContext"),
            (1, "surface::Progress"),
            (2, "config::Config"),
            (3, "config::coder::CoderConfig::default"),
            (4, "Workspace"),
        ]
    );
    // From ops/patch/v4a.rs, super::super is ops: its own modules are not the surface's.
    let deep = Path::new("ops/patch/v4a.rs");
    assert!(reaches(deep, "use super::super::read::Line;", PROFILE_LEVEL).is_empty());
    assert_eq!(
        reaches(
            deep,
            "use super::super::super::surface::Surface;",
            PROFILE_LEVEL
        )
        .len(),
        1
    );
    // An inline module nests: super inside `mod tests` is the file's module.
    let nested = "mod tests {\n use super::super::config::X;\n}\n";
    assert_eq!(crate_paths(edit, nested)[0].0.join("::"), "ops::config::X");
    assert!(reaches(edit, nested, PROFILE_LEVEL).is_empty());
}

#[test]
fn the_layer_check_ignores_comments_strings_and_lookalikes() {
    let edit = Path::new("ops/edit.rs");
    let src = "// use crate::surface::X;\n\
               /* crate::config::Y /* nested */ crate::surface::Z */\n\
               const A: &str = \"crate::surface::X\";\n\
               const B: &str = r#\"crate::config::\"Y\"\"#;\n\
               const C: char = '{';\n\
               fn g<'a>(x: &'a str) -> &'a str { x }\n\
               pub(crate) fn h() { ops::surface_of(); my::config::X; }\n\
               use crate::text::config_words;\n";
    assert_eq!(reaches(edit, src, PROFILE_LEVEL), vec![]);
}

#[test]
fn the_process_check_sees_every_spelling_of_command() {
    let f = Path::new("surface/sgpt/agent.rs");
    let src = "use std::process::{Child, Command};\n\
               fn a() { std::process::Command::new(\"sh\"); }\n\
               use std::os::unix::process::CommandExt;\n\
               fn b() { Command::new(\"x\"); }\n\
               use std::process::ExitCode;\n";
    let lines: Vec<usize> = starts_processes(f, src).iter().map(|f| f.line).collect();
    assert_eq!(lines, vec![1, 2, 2, 3, 4]);
}

#[test]
fn the_allowance_check_tells_test_code_from_the_rest() {
    let src = "#[allow(clippy::disallowed_methods)] // not test code\n\
               fn read() {}\n\
               #[cfg(test)]\n\
               #[allow(clippy::disallowed_methods)]\n\
               mod tests {\n\
                   #[allow(clippy::disallowed_types)]\n\
                   fn t() { let x = '}'; }\n\
               }\n\
               mod more {\n\
                   #![allow(clippy::disallowed_types)]\n\
               }\n\
               #[cfg(test)]\n\
               mod t2 { #![allow(clippy::disallowed_methods)] }\n";
    assert_eq!(
        allowances(src),
        vec![(1, false), (4, true), (6, true), (10, false), (13, true)]
    );
}
