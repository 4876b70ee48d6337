//! Every profile's search answers as a baseline build of fsgate does, byte for byte, on a
//! generated tree that holds what searches trip over: nested ignore files with negations,
//! binary files (a NUL early, late, and past a large file's matches), legacy-encoded and
//! UTF-16/32 text, long and very long lines, symbolic links (to files, to folders, looping,
//! dangling, leading out), names that are not UTF-8, artifact folders, files the secret globs
//! hide, noise folders, a deep chain of folders and a wide one.
//!
//! The baseline is a release binary built from the code before a change, named by
//! `FSGATE_BASELINE_BIN`; without it the test says so and passes without checking. Each case is
//! one `fsgate call` of gg `search`, coder `search`, qwen `glob` and `grep_search`, picoclaw
//! `search_files` or sgpt `search_lores`, run by both binaries on the same tree; their exit codes
//! and outputs must be equal. Then each profile serves an MCP session that searches, changes the
//! tree (a new file, a changed ignore file, a removed folder) and searches again, so listings
//! kept from one search to the next are compared too. Where the machine allows (root and
//! `setpriv`), a few cases also run as an unprivileged user in a tree with a folder it may not
//! read.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

/// The release binary of the code before the change.
fn baseline() -> Option<PathBuf> {
    match std::env::var_os("FSGATE_BASELINE_BIN") {
        Some(bin) if Path::new(&bin).is_file() => Some(PathBuf::from(bin)),
        Some(bin) => {
            eprintln!(
                "skipped: FSGATE_BASELINE_BIN names {}, which is not a file",
                Path::new(&bin).display()
            );
            None
        }
        None => {
            eprintln!(
                "skipped: FSGATE_BASELINE_BIN is not set; set it to a release binary of the code \
                 before the change to compare every profile's search answers with it"
            );
            None
        }
    }
}

/// The binary of the code under test: `FSGATE_NEW_BIN` when set (a release build runs the
/// large cases faster), else this package's.
fn new_bin() -> PathBuf {
    std::env::var_os("FSGATE_NEW_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_fsgate")),
        PathBuf::from,
    )
}

/// `text` without what a walk passed over: the closing lines and fields that count it. A search
/// that stops once its answer is complete may have walked ahead of that answer by a varying
/// amount, so those counts vary from run to run of one binary.
fn without_skips(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("[skipped: ")
            || line.starts_with("(skipped: ")
            || line.starts_with("Passed over by the walk: ")
        {
            continue;
        }
        let mut line = line.to_string();
        if let Some(at) = line.find("\"skipped\":{") {
            let end = line[at..].find('}').map_or(line.len(), |e| at + e + 1);
            line.replace_range(at..end, "\"skipped\":{}");
        }
        out.push(line);
    }
    out.join("\n")
}

/// What `text` says was passed over: each count by what it counts (`2 symlink loops`, coder's
/// `"symlink_loops":2`), and each ignore file said not to be read.
fn skip_counts(text: &str) -> std::collections::BTreeMap<String, u64> {
    let mut counts = std::collections::BTreeMap::new();
    let kinds = [
        ("unreadable folder", "unreadable_folders"),
        ("unreadable file", "unreadable_files"),
        ("symlink loop", "symlink_loops"),
        ("matching non_accessible_globs", "non_accessible"),
    ];
    for line in text.lines() {
        let said = line.starts_with("[skipped: ")
            || line.starts_with("(skipped: ")
            || line.starts_with("Passed over by the walk: ");
        if said {
            for part in line.split([',', ';']) {
                let part = part.trim();
                let number = part
                    .split(' ')
                    .find_map(|w| w.trim_start_matches(['[', '(']).parse::<u64>().ok());
                if let Some((_, key)) = kinds.iter().find(|(words, _)| part.contains(words)) {
                    *counts.entry(key.to_string()).or_insert(0) += number.unwrap_or(0);
                } else if part.contains("ignore file") {
                    counts.insert(part.to_string(), 1);
                }
            }
        }
        if let Some(at) = line.find("\"skipped\":{") {
            let end = line[at..].find('}').map_or(line.len(), |e| at + e);
            for field in line[at + 11..end].split(',') {
                if let Some((key, value)) = field.split_once(':') {
                    let key = key.trim_matches('"').to_string();
                    *counts.entry(key).or_insert(0) += value.parse::<u64>().unwrap_or(0);
                }
            }
        }
    }
    counts
}

/// Whether `after` differs from `before` only in saying it passed over less: gg's and coder's
/// searches stop once their answer is complete but count all their walk met, and the walk runs
/// ahead of the answer by a way that varies from run to run (in the baseline as in this build).
/// Everything else must be equal.
fn says_less_passed_over(before: &(Option<i32>, String), after: &(Option<i32>, String)) -> bool {
    if before.0 != after.0 || without_skips(&before.1) != without_skips(&after.1) {
        return false;
    }
    let (was, now) = (skip_counts(&before.1), skip_counts(&after.1));
    now.iter()
        .all(|(key, n)| *n == 0 || was.get(key).is_some_and(|w| n <= w))
}

/// The baseline's answer with the changes made on purpose since it was built applied, so only
/// unintended differences remain. Engine errors used to end with gg's `check the path with
/// list_dir` in every profile; each profile now names its own listing call.
fn intended(profile: &str, text: &str) -> String {
    let own = match profile {
        "coder" => "check the path with list-folder",
        "qwen" => "check the path with list_directory",
        "sgpt" => "check the path (exec_shell: ls)",
        _ => return text.to_string(),
    };
    text.replace("check the path with list_dir", own)
}

/// Whether the two answers of a search cut by its limit differ only in what they say their walk
/// passed over. Such a search stops once its answer is complete, and how far its walk ran ahead
/// of the answer meanwhile depends on the threads' timing (the walk and the scanners run side by
/// side), in the baseline as in this build; what it reports is what that walk met.
fn walked_ahead_of_a_limit(
    case: &Case,
    before: &(Option<i32>, String),
    after: &(Option<i32>, String),
) -> bool {
    let limited = case.args.get("limit").is_some();
    let equal = before.0 == after.0 && without_skips(&before.1) == without_skips(&after.1);
    limited && equal
}

/// `text` with the names of saved results (which hold the time and the process id) made equal.
fn without_artifact_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("search_files-") {
        out.push_str(&rest[..at]);
        out.push_str("search_files-N");
        rest = &rest[at + "search_files-".len()..];
        let skip = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .unwrap_or(rest.len());
        rest = &rest[skip..];
    }
    out.push_str(rest);
    out
}

/// Removes the results a call saved into the workspace's artifact folder, so the next call
/// sees the tree as generated.
fn clean_saved(ws: &Path) {
    let dir = ws.join(".picoclaw/tool-results");
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with("search_files-")
            {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
    }
}

/// A fixed modification time per file, so two trees generated alike sort alike by time.
struct Clock(u64);

impl Clock {
    fn next(&mut self) -> SystemTime {
        self.0 += 7;
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + self.0)
    }
}

fn put(root: &Path, rel: impl AsRef<OsStr>, bytes: &[u8], clock: &mut Clock) {
    let path = root.join(Path::new(rel.as_ref()));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(clock.next()).unwrap();
}

fn link(root: &Path, rel: &str, target: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, path).unwrap();
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    let mut out = if big_endian {
        vec![0xFE, 0xFF]
    } else {
        vec![0xFF, 0xFE]
    };
    for unit in text.encode_utf16() {
        let bytes = if big_endian {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        };
        out.extend_from_slice(&bytes);
    }
    out
}

fn utf32le(text: &str) -> Vec<u8> {
    let mut out = vec![0xFF, 0xFE, 0, 0];
    for c in text.chars() {
        out.extend_from_slice(&(c as u32).to_le_bytes());
    }
    out
}

/// Lines of windows-1252 text (é as 0xE9), `n` of them, a match every tenth.
fn latin_lines(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        if i % 10 == 0 {
            out.extend_from_slice(format!("line {i} caf").as_bytes());
            out.push(0xE9);
            out.extend_from_slice(b" needle\n");
        } else {
            out.extend_from_slice(format!("line {i} filler text of the page\n").as_bytes());
        }
    }
    out
}

/// Writes the workspace `ws` (and `outside`, a folder beside it).
fn generate(ws: &Path, outside: &Path) {
    let mut clock = Clock(0);
    let c = &mut clock;
    std::fs::create_dir_all(ws).unwrap();
    // Ignore files: nested, negations, each kind.
    put(
        ws,
        ".gitignore",
        b"*.log\nbuild/\n!keep.log\n/nested/deep/*.tmp\nignored_dir/\n",
        c,
    );
    put(ws, ".ignore", b"dotignored/\n", c);
    put(ws, ".qwenignore", b"qwen_hidden/\n*.secretish\n", c);
    put(ws, ".aiignore", b"ai_hidden.txt\n", c);
    put(ws, "README.md", b"# Project\nneedle in the readme\n", c);
    put(ws, "keep.log", b"needle kept log\n", c);
    put(ws, "drop.log", b"needle dropped log\n", c);
    put(ws, "build/out.txt", b"needle in build\n", c);
    put(ws, "build/.gitignore", b"!*.txt\n", c);
    put(ws, "ignored_dir/x.txt", b"needle ignored dir\n", c);
    put(ws, "dotignored/y.txt", b"needle dot ignored\n", c);
    put(ws, "qwen_hidden/z.txt", b"needle qwen hidden\n", c);
    put(ws, "ai_hidden.txt", b"needle ai hidden\n", c);
    put(ws, "a.secretish", b"needle secretish\n", c);
    put(ws, ".git/config", b"[core]\nneedle in git\n", c);
    put(ws, ".git/info/exclude", b"excluded_by_git.txt\n", c);
    put(ws, "excluded_by_git.txt", b"needle excluded by git\n", c);
    // Source text of every shape.
    put(
        ws,
        "src/a.rs",
        b"fn main() {\n    needle();\n}\nNEEDLE upper\n  needle indented\nfn needle_two() {}\n",
        c,
    );
    put(
        ws,
        "src/b.c",
        b"#define PM_SUSPEND 1\nint x = ACPI_STATE_SUSPEND; /* needle */\nstatic int y;\n",
        c,
    );
    put(
        ws,
        "src/crlf.txt",
        b"needle one\r\nneedle two\r\nplain\r\n",
        c,
    );
    put(ws, "src/cr_only.txt", b"needle\rold mac\r", c);
    put(ws, "src/noeol.txt", b"first\nlast needle", c);
    put(ws, "src/empty.txt", b"", c);
    let mut long = "x".repeat(5000);
    long.push_str("needle\nneedle short\n");
    long.push_str(&"y".repeat(300));
    long.push_str(" needle at 300\n");
    put(ws, "src/long.txt", long.as_bytes(), c);
    let mut huge = b"retry = 1 needle\n".to_vec();
    huge.extend_from_slice(&b"x".repeat(499_000));
    huge.extend_from_slice(b"needle");
    huge.extend_from_slice(&b"y".repeat(1000));
    huge.extend_from_slice(b"\nneedle after\n");
    put(ws, "src/huge_line.js", &huge, c);
    let many: String = (1..=300).map(|i| format!("needle {i}\n")).collect();
    put(ws, "src/many.txt", many.as_bytes(), c);
    put(
        ws,
        "src/multi.txt",
        b"needle needle needle\nno\nneedle\n",
        c,
    );
    put(
        ws,
        "src/unicode.txt",
        "café needle\n日本語 needle\nemoji 🎉 needle\nİstanbul needle\n".as_bytes(),
        c,
    );
    put(ws, "src/sub/.gitignore", b"*.gen\n!important.gen\n", c);
    put(ws, "src/sub/x.gen", b"needle gen\n", c);
    put(ws, "src/sub/important.gen", b"needle important\n", c);
    put(ws, "src/sub/deeper/.ignore", b"!*.log\n", c);
    put(ws, "src/sub/deeper/re.log", b"needle re-included log\n", c);
    put(
        ws,
        "src/sub/deeper/code.py",
        b"def needle():\n    return 1\n",
        c,
    );
    put(ws, "src/[id].tsx", b"export const needle = 1;\n", c);
    put(ws, "src/UPPER.C", b"needle upper C\n", c);
    put(ws, "nested/deep/a.tmp", b"needle tmp\n", c);
    put(ws, "nested/deep/a.txt", b"needle txt\n", c);
    // Binary files.
    put(ws, "bin/nul_start.bin", b"\0needle\n", c);
    let mut after = b"needle\n".repeat(10);
    after.extend_from_slice(&vec![b'x'; 200_000]);
    after.push(0);
    put(ws, "bin/nul_after.txt", &after, c);
    let mut big = b"needle\n".repeat(10);
    big.resize(5 << 20, b'x');
    big.push(0);
    put(ws, "bin/big_nul.dat", &big, c);
    let mut late = b"needle before a late nul\n".to_vec();
    late.resize(10_000, b'z');
    late.extend_from_slice(b"\0\nneedle after the nul\n");
    put(ws, "bin/late_nul.txt", &late, c);
    let mut big_text = Vec::new();
    big_text.extend_from_slice(b"needle at the start\n");
    let mut i = 0;
    while big_text.len() < (5 << 20) {
        i += 1;
        if i % 5000 == 0 {
            big_text.extend_from_slice(format!("needle in the middle {i}\n").as_bytes());
        } else {
            big_text.extend_from_slice(format!("line {i} of a large text file\n").as_bytes());
        }
    }
    big_text.extend_from_slice(b"needle at the end\n");
    put(ws, "bin/big_text.txt", &big_text, c);
    // Encodings.
    put(ws, "enc/latin1.txt", b"caf\xe9 needle\nna\xefve\n", c);
    put(ws, "enc/latin_big.txt", &latin_lines(160_000), c);
    put(
        ws,
        "enc/utf16le.txt",
        &utf16("needle café\r\nline two needle\r\nthree\r\n", false),
        c,
    );
    put(
        ws,
        "enc/utf16be.txt",
        &utf16("needle big endian\nsecond needle\n", true),
        c,
    );
    put(
        ws,
        "enc/utf16_nul.txt",
        &utf16("needle with a \u{0} inside\n", false),
        c,
    );
    put(ws, "enc/utf32.txt", &utf32le("needle thirty two\n"), c);
    put(ws, "enc/utf8bom.txt", b"\xEF\xBB\xBFneedle bom\n", c);
    let mut near = "needle ok é\n".repeat(200).into_bytes();
    near.extend_from_slice(b"bad \xff byte needle\n");
    put(ws, "enc/near_utf8.txt", &near, c);
    put(
        ws,
        "enc/sjis.txt",
        b"\x93\xfa\x96\x7b\x8c\xea needle\n\x82\xa0\x82\xa2\x82\xa4\n",
        c,
    );
    // Links.
    link(ws, "links/to_file", "../src/a.rs");
    link(ws, "links/to_dir", "../src");
    link(ws, "links/loop", "..");
    link(ws, "links/self", "self");
    link(ws, "links/dangling", "nowhere");
    link(ws, "links/outside", "/");
    put(ws, "links/real.txt", b"needle real\n", c);
    // Names.
    put(
        ws,
        OsStr::from_bytes(b"names/caf\xe9.txt"),
        b"needle latin name\n",
        c,
    );
    put(ws, "names/new\nline.txt", b"needle newline name\n", c);
    put(ws, "names/ space .txt", b"needle spaces\n", c);
    put(ws, "names/tab\there.txt", b"needle tab\n", c);
    put(ws, "names/needle_name.md", b"no match inside\n", c);
    // Artifact folders.
    put(
        ws,
        ".picoclaw/tool-results/spill.txt",
        b"needle spilled\n",
        c,
    );
    put(ws, ".picoclaw/tool-results/.gitignore", b"*\n", c);
    put(ws, ".fsgate/artifacts/out.log", b"needle artifact\n", c);
    put(
        ws,
        ".fsgate/artifacts/out.txt",
        b"needle artifact text\n",
        c,
    );
    // Secrets (each profile's globs name them).
    put(ws, ".env", b"SECRET=needle\n", c);
    put(ws, "config/app.pem", b"needle pem\n", c);
    put(ws, "config/app.toml", b"needle = true\n", c);
    put(ws, "keys/deploy.key", b"needle key\n", c);
    put(ws, "secretdir/inner.txt", b"needle inner\n", c);
    put(ws, ".ssh/id_rsa", b"needle ssh key\n", c);
    put(ws, ".aws/credentials", b"needle aws\n", c);
    // Noise folders (coder's default excludes).
    put(ws, "node_modules/pkg/index.js", b"needle nm\n", c);
    put(ws, "target/debug/x.txt", b"needle target\n", c);
    put(ws, "dist/bundle.js", b"needle dist\n", c);
    // A deep chain and a wide folder.
    let mut deep = PathBuf::from("deep");
    for i in 0..150 {
        deep.push(format!("d{i}"));
    }
    put(ws, deep.join("leaf.txt"), b"needle deep leaf\n", c);
    for i in 0..300 {
        put(
            ws,
            format!("wide/w{i:03}/f.txt"),
            format!("needle wide {i}\n").as_bytes(),
            c,
        );
    }
    // Lore libraries (sgpt).
    put(
        ws,
        "lore/a.md",
        b"---\ntitle: Deploys\ndescription: How we ship the needle\nlabels: [ops, ci]\n---\n# Deploys\nneedle one\nsecond line\nneedle two\n",
        c,
    );
    put(
        ws,
        "lore/b.markdown",
        b"---\ntitle: Needle\nlabels: needle, other\n---\nbody\n",
        c,
    );
    put(ws, "lore/c.mdx", b"# C\nneedle in mdx\n", c);
    put(ws, "lore/.hidden/h.md", b"needle hidden\n", c);
    put(
        ws,
        "lore/sub/d.md",
        b"---\ntitle: D\n---\nNEEDLE upper\n",
        c,
    );
    put(ws, "lore/plain.md", b"no front matter needle\n", c);
    put(
        ws,
        "lore/bad_front.md",
        b"---\ntitle: [unclosed\n---\nneedle bad front\n",
        c,
    );
    put(ws, "lore/latin.md", b"caf\xe9 needle\n", c);
    put(ws, "lore/notes.txt", b"needle not markdown\n", c);
    put(ws, "lore/env.md", b"needle secret lore\n", c);
    let mut big_lore = b"# big\nneedle\n".to_vec();
    big_lore.resize((4 << 20) + 10, b'x');
    put(ws, "lore/big.md", &big_lore, c);
    let long_snippet = format!("{} needle {}\n", "a".repeat(300), "b".repeat(300));
    put(ws, "lore/long.md", long_snippet.as_bytes(), c);
    link(ws, "lore/link.md", "a.md");
    link(ws, "lore/loop", "..");
    link(ws, "lore/sub/up", "../sub");
    // A folder beside the workspace, searched by absolute path.
    put(outside, ".gitignore", b"*.skip\n", c);
    put(outside, "o.txt", b"needle outside\n", c);
    put(outside, "o.skip", b"needle skipped outside\n", c);
    put(outside, "sub/p.txt", b"needle outside sub\n", c);
}

/// One call: the profile, its extra command-line arguments, the tool and its arguments.
#[derive(Clone, Debug)]
struct Case {
    profile: &'static str,
    extra: Vec<String>,
    tool: &'static str,
    args: Value,
}

/// What a binary answered: exit code, stdout, and stderr's first line when it failed.
fn run(bin: &Path, ws: &Path, state: &Path, case: &Case, as_user: bool) -> (Option<i32>, String) {
    let mut cmd = if as_user {
        let mut cmd = Command::new("setpriv");
        cmd.args([
            "--reuid",
            "nobody",
            "--regid",
            "nogroup",
            "--clear-groups",
            "--",
        ]);
        cmd.arg(bin);
        cmd
    } else {
        Command::new(bin)
    };
    let out = cmd
        .args([
            "call",
            case.tool,
            &case.args.to_string(),
            "--profile",
            case.profile,
        ])
        .arg("--root")
        .arg(ws)
        .args(&case.extra)
        .env("HOME", state)
        .env("FSGATE_STATE_DIR", state)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("FSGATE_LOG")
        .current_dir(ws)
        .output()
        .unwrap();
    clean_saved(ws);
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.code() == Some(2) {
        text.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    (out.status.code(), without_artifact_names(&text))
}

fn case(profile: &'static str, extra: &[&str], tool: &'static str, args: Value) -> Case {
    Case {
        profile,
        extra: extra.iter().map(|s| s.to_string()).collect(),
        tool,
        args,
    }
}

/// The configuration files, written into `dir`; each profile's flags name them.
struct Configs {
    gg_secrets: String,
    coder: String,
    coder_noise_off: String,
    qwen: String,
    qwen_no_git: String,
    pico: String,
    pico_open: String,
    pico_small: String,
    sgpt: String,
    sgpt_secrets: String,
}

fn configs(dir: &Path, ws: &Path, outside: &Path) -> Configs {
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let secrets =
        r#"["**/.env", "**/*.pem", "**/*.key", "**/secretdir", "**/secretdir/**", "lore/env.md"]"#;
    Configs {
        gg_secrets: write(
            "gg.toml",
            format!("[access]\nnon_accessible_globs = {secrets}\n"),
        ),
        coder: write(
            "coder.yaml",
            format!(
                "base_paths:\n  - {}\n  - {}\nnon_accessible_globs: {secrets}\nmax_read_bytes: 8388608\n",
                ws.display(),
                outside.display()
            ),
        ),
        coder_noise_off: write(
            "coder_noise.yaml",
            format!(
                "base_paths:\n  - {}\nnon_accessible_globs: [\"**/.env\"]\ndefault_exclude_globs: [\"**/wide/**\", \"**/*.tmp\"]\nsearch_response_budget_bytes: 4000\n",
                ws.display()
            ),
        ),
        qwen: write(
            "qwen.json",
            format!(
                "{{\"context\": {{\"fileFiltering\": {{\"nonAccessibleGlobs\": {secrets}}}}}}}"
            ),
        ),
        qwen_no_git: write(
            "qwen_nogit.json",
            "{\"context\": {\"fileFiltering\": {\"respectGitIgnore\": false, \"customIgnoreFiles\": [\".ignore\"]}}}".to_string(),
        ),
        pico: write(
            "pico.json",
            format!(
                "{{\"tools\": {{\"non_accessible_globs\": {secrets}, \"allow_read_paths\": [\"^{}(?:/|$)\"]}}}}",
                outside.display()
            ),
        ),
        pico_open: write(
            "pico_open.json",
            "{\"agents\": {\"defaults\": {\"restrict_to_workspace\": false}}}".to_string(),
        ),
        pico_small: write(
            "pico_small.json",
            "{\"tools\": {\"max_inline_result_chars\": 700}}".to_string(),
        ),
        sgpt: write(
            "sgpt.toml",
            "[lore]\nlibraries = [\"lore\", \"lore/sub\", \"missing_library\", \"README.md\"]\n".to_string(),
        ),
        sgpt_secrets: write(
            "sgpt_secrets.toml",
            format!("[lore]\nlibraries = [\"lore\"]\n[access]\nnon_accessible_globs = {secrets}\n"),
        ),
    }
}

fn cases(cfg: &Configs, ws: &Path, outside: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let abs_src = ws.join("src").display().to_string();
    let abs_out = outside.display().to_string();
    // gg search.
    let paths: Vec<Option<String>> = [
        None,
        Some("."),
        Some("src"),
        Some("src/sub"),
        Some("enc"),
        Some("bin"),
        Some("names"),
        Some("links"),
        Some("links/to_dir"),
        Some("build"),
        Some("nested"),
        Some(".picoclaw/tool-results"),
        Some(".fsgate"),
        Some("deep"),
        Some("wide"),
        Some("src/a.rs"),
        Some("bin/big_nul.dat"),
        Some("enc/utf16le.txt"),
        Some(".env"),
        Some(".git"),
        Some("missing"),
        Some(abs_src.as_str()),
        Some(abs_out.as_str()),
    ]
    .iter()
    .map(|p| p.map(String::from))
    .collect();
    let gg_flags: [&[&str]; 3] = [&[], &["--jail", "roots"], &["--config", &cfg.gg_secrets]];
    for flags in gg_flags {
        for path in &paths {
            let mut args = json!({"query": "needle", "limit": 500});
            if let Some(p) = path {
                args["path"] = json!(p);
            }
            out.push(case("gg", flags, "search", args));
        }
        for (query, limit) in [
            ("needle", 1),
            ("needle", 3),
            ("needle", 7),
            ("needle", 50),
            ("needle", 200),
            ("(?i)NEEDLE", 500),
            ("^needle", 500),
            ("needle$", 500),
            ("café", 500),
            ("日本", 500),
            ("[A-Z]+_SUSPEND", 500),
            ("x{40}", 500),
            ("nomatch_zzz", 500),
            ("(", 5),
            ("   ", 5),
            ("a\\nb", 5),
        ] {
            out.push(case(
                "gg",
                flags,
                "search",
                json!({"query": query, "limit": limit}),
            ));
        }
    }
    // coder search.
    let coder = ["--config", cfg.coder.as_str()];
    let coder_noise = ["--config", cfg.coder_noise_off.as_str()];
    let coder_args = [
        json!({"query": "needle"}),
        json!({"query": "needle", "max_matches": 5}),
        json!({"query": "needle", "max_matches": 1000}),
        json!({"query": "NEEDLE", "ignore_case": true}),
        json!({"query": "^needle", "regex": true}),
        json!({"query": "needle$", "regex": true, "max_line_bytes": 20}),
        json!({"query": "needle", "max_line_bytes": 64}),
        json!({"query": "needle", "search_content": false}),
        json!({"query": "src", "search_content": false, "search_paths": true}),
        json!({"query": "needle", "include_globs": ["**/*.rs", "**/*.txt"]}),
        json!({"query": "needle", "exclude_globs": ["wide/**", "deep/**"]}),
        json!({"query": "needle", "use_default_excludes": false}),
        json!({"query": "needle", "context_lines_before": 2, "context_lines_after": 1, "path": "src"}),
        json!({"query": "needle", "context_lines_after": 3, "path": "bin"}),
        json!({"query": "needle", "path": "bin"}),
        json!({"query": "needle", "path": "enc"}),
        json!({"query": "caf", "path": "enc"}),
        json!({"query": "needle", "path": "names"}),
        json!({"query": "needle", "path": "links"}),
        json!({"query": "needle", "path": "node_modules"}),
        json!({"query": "needle", "path": "src/a.rs"}),
        json!({"query": "needle", "path": "deep"}),
        json!({"query": "needle", "path": ".picoclaw"}),
        json!({"query": "needle", "path": ".picoclaw/tool-results"}),
        json!({"query": "needle", "path": abs_out.clone()}),
        json!({"query": "needle", "path": "missing"}),
        json!({"query": "(", "regex": true}),
        json!({"query": ""}),
        json!({"query": "PM_SUSPEND|_SUSPEND", "regex": true}),
        json!({"query": "retry", "path": "src"}),
    ];
    for args in &coder_args {
        out.push(case("coder", &coder, "search", args.clone()));
        out.push(case("coder", &coder_noise, "search", args.clone()));
    }
    // qwen glob and grep_search.
    let qwen = ["--config", cfg.qwen.as_str()];
    let qwen_no_git = ["--config", cfg.qwen_no_git.as_str()];
    for flags in [&qwen, &qwen_no_git] {
        for (pattern, path) in [
            ("**/*.txt", None),
            ("*.rs", None),
            ("**/*.rs", Some("src")),
            ("src/**/*.rs", None),
            ("**/*", None),
            ("**/*.c", None),
            ("src/[id].tsx", None),
            ("**/*.md", Some("lore")),
            ("**/*.txt", Some("build")),
            ("**/*", Some("links")),
            ("**/*.txt", Some("missing")),
            ("**/*.txt", Some("src/a.rs")),
            ("**/{a,b}.*", None),
            ("[", None),
        ] {
            let mut args = json!({"pattern": pattern});
            if let Some(p) = path {
                args["path"] = json!(p);
            }
            out.push(case("qwen", flags, "glob", args));
        }
        for args in [
            json!({"pattern": "needle"}),
            json!({"pattern": "NEEDLE", "limit": 3}),
            json!({"pattern": "needle", "limit": 1000}),
            json!({"pattern": "needle", "glob": "*.rs"}),
            json!({"pattern": "needle", "glob": "src/**"}),
            json!({"pattern": "needle", "glob": "!*.txt"}),
            json!({"pattern": "needle", "path": "enc"}),
            json!({"pattern": "café", "path": "enc"}),
            json!({"pattern": "needle", "path": "bin"}),
            json!({"pattern": "needle", "path": "src/huge_line.js"}),
            json!({"pattern": "needle", "path": "links"}),
            json!({"pattern": "needle", "path": "build"}),
            json!({"pattern": "needle", "path": ".fsgate/artifacts"}),
            json!({"pattern": "needle", "path": abs_out.clone()}),
            json!({"pattern": "needle", "path": "missing"}),
            json!({"pattern": "(", "path": "src"}),
            json!({"pattern": "[A-Z]+_SUSPEND"}),
        ] {
            out.push(case("qwen", flags, "grep_search", args));
        }
    }
    // picoclaw search_files.
    let pico: [&[&str]; 3] = [
        &["--config", cfg.pico.as_str()],
        &["--config", cfg.pico_open.as_str()],
        &["--config", cfg.pico_small.as_str()],
    ];
    for flags in pico {
        for args in [
            json!({"pattern": "needle"}),
            json!({"pattern": "needle", "limit": 200}),
            json!({"pattern": "needle", "offset": 45, "limit": 10}),
            json!({"pattern": "needle", "offset": 5000}),
            json!({"pattern": "needle", "context": 2, "limit": 200}),
            json!({"pattern": "needle", "context": 20, "path": "src"}),
            json!({"pattern": "needle", "output_mode": "files_only", "limit": 200}),
            json!({"pattern": "needle", "output_mode": "count", "limit": 200}),
            json!({"pattern": "needle", "order": "modified", "limit": 30}),
            json!({"pattern": "needle", "file_glob": "*.txt", "limit": 200}),
            json!({"pattern": "needle", "file_glob": "src/**", "limit": 200}),
            json!({"pattern": "needle", "file_glob": "sub"}),
            json!({"pattern": "", "target": "files", "limit": 200}),
            json!({"pattern": "*.rs", "target": "files"}),
            json!({"pattern": "src/**/*.txt", "target": "files", "order": "modified"}),
            json!({"pattern": "needle", "target": "files"}),
            json!({"pattern": "needle", "path": "enc"}),
            json!({"pattern": "needle", "path": "bin"}),
            json!({"pattern": "needle", "path": "names"}),
            json!({"pattern": "needle", "path": "links"}),
            json!({"pattern": "needle", "path": "build"}),
            json!({"pattern": "needle", "path": ".picoclaw/tool-results"}),
            json!({"pattern": "needle", "path": "src/huge_line.js"}),
            json!({"pattern": "needle", "path": "src/long.txt", "context": 1}),
            json!({"pattern": "needle", "path": "bin/late_nul.txt"}),
            json!({"pattern": "needle", "path": abs_out.clone()}),
            json!({"pattern": "needle", "path": "missing"}),
            json!({"pattern": "(", "path": "src"}),
            json!({"pattern": "needle", "output_mode": "bogus"}),
            json!({"pattern": "needle", "path": "deep", "limit": 5}),
        ] {
            out.push(case("picoclaw", flags, "search_files", args));
        }
    }
    // sgpt search_lores.
    for flags in [
        ["--config", cfg.sgpt.as_str()],
        ["--config", cfg.sgpt_secrets.as_str()],
    ] {
        for args in [
            json!({"query": "needle"}),
            json!({"query": "needle", "top_n": 1}),
            json!({"query": "deploys|ops"}),
            json!({"query": "^#"}),
            json!({"query": "caf"}),
            json!({"query": "zzz_nothing"}),
            json!({"query": "("}),
            json!({"query": "needle", "top_n": 0}),
        ] {
            out.push(case("sgpt", &flags, "search_lores", args));
        }
    }
    out
}

/// Compares each case's answer from both binaries; returns the differences, described. When
/// the answers differ and the baseline's own answer varies from run to run (what a limited
/// search counts as passed over, see [`without_skips`]), they are compared without those
/// counts.
fn compare(old: &Path, ws: &Path, state: &Path, cases: &[Case], as_user: bool) -> Vec<String> {
    let mut diffs = Vec::new();
    let (mut unstable, mut fewer) = (0, 0);
    for case in cases {
        let before = run(old, ws, state, case, as_user);
        let before = (before.0, intended(case.profile, &before.1));
        let after = run(&new_bin(), ws, state, case, as_user);
        if before == after {
            continue;
        }
        if says_less_passed_over(&before, &after) || walked_ahead_of_a_limit(case, &before, &after)
        {
            fewer += 1;
            eprintln!(
                "passed over less, or walked ahead of a limit: {} {} {} {:?} -> {:?}",
                case.profile,
                case.tool,
                case.args,
                skip_counts(&before.1),
                skip_counts(&after.1)
            );
            continue;
        }
        // Up to five more runs of the baseline tell whether its own answer varies.
        let varies = (0..5).any(|_| run(old, ws, state, case, as_user) != before);
        if varies {
            unstable += 1;
            if before.0 == after.0 && without_skips(&before.1) == without_skips(&after.1) {
                continue;
            }
        }
        {
            diffs.push(format!(
                "{} {:?} {} {}\n--- before (exit {:?})\n{}\n--- after (exit {:?})\n{}\n",
                case.profile,
                case.extra,
                case.tool,
                case.args,
                before.0,
                before.1,
                after.0,
                after.1
            ));
        }
    }
    eprintln!(
        "{fewer} cases that say they passed over less than the baseline, or other amounts on the \
         way to a limit, {unstable} whose skipped counts vary in the baseline itself"
    );
    diffs
}

#[test]
fn every_profiles_search_answers_as_the_baseline_does() {
    let Some(old) = baseline() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (ws, outside, state) = (
        tmp.path().join("ws"),
        tmp.path().join("outside"),
        tmp.path().join("state"),
    );
    std::fs::create_dir_all(&state).unwrap();
    generate(&ws, &outside);
    let cfg = configs(tmp.path(), &ws, &outside);
    let cases = cases(&cfg, &ws, &outside);
    let diffs = compare(&old, &ws, &state, &cases, false);
    eprintln!("{} cases compared, {} differ", cases.len(), diffs.len());
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn searches_by_an_unprivileged_user_answer_as_the_baseline_does() {
    let Some(old) = baseline() else {
        return;
    };
    let root = std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|u| u.split_whitespace().nth(1).map(|u| u == "0"))
            .unwrap_or(false)
    });
    if !root || Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped: not root, or setpriv is missing: cannot act as another user");
        return;
    }
    for bin in [&old, &new_bin()] {
        let readable = bin
            .ancestors()
            .all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0));
        if !readable {
            eprintln!(
                "skipped: {} is not reachable by another user",
                bin.display()
            );
            return;
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let (ws, outside, state) = (
        tmp.path().join("ws"),
        tmp.path().join("outside"),
        tmp.path().join("state"),
    );
    generate(&ws, &outside);
    for (dir, mode) in [("locked", 0o700), ("src/sub/shut", 0o000)] {
        let mut clock = Clock(1_000_000);
        put(
            &ws,
            format!("{dir}/hit.txt"),
            b"needle locked\n",
            &mut clock,
        );
        std::fs::set_permissions(ws.join(dir), std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let mut clock = Clock(2_000_000);
    put(
        &ws,
        "src/unreadable.txt",
        b"needle unreadable\n",
        &mut clock,
    );
    std::fs::set_permissions(
        ws.join("src/unreadable.txt"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::fs::create_dir_all(&state).unwrap();
    std::os::unix::fs::chown(&state, Some(65534), Some(65534)).unwrap();
    let cases = vec![
        case(
            "gg",
            &[],
            "search",
            json!({"query": "needle", "limit": 500}),
        ),
        case(
            "gg",
            &["--jail", "roots"],
            "search",
            json!({"query": "needle", "limit": 500}),
        ),
        case(
            "gg",
            &[],
            "search",
            json!({"query": "needle", "path": "src"}),
        ),
        case("coder", &[], "search", json!({"query": "needle"})),
        case("qwen", &[], "glob", json!({"pattern": "**/*.txt"})),
        case("qwen", &[], "grep_search", json!({"pattern": "needle"})),
        case(
            "picoclaw",
            &[],
            "search_files",
            json!({"pattern": "needle", "limit": 200}),
        ),
        case(
            "picoclaw",
            &[],
            "search_files",
            json!({"pattern": "", "target": "files", "limit": 200}),
        ),
    ];
    let diffs = compare(&old, &ws, &state, &cases, true);
    // Let the temporary folder be removed.
    for dir in ["locked", "src/sub/shut"] {
        std::fs::set_permissions(ws.join(dir), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// One profile's session: the calls made, and between them the changes to the tree.
enum Step {
    Call(&'static str, Value),
    Change(fn(&Path)),
}

fn sessions() -> Vec<(&'static str, Vec<Step>)> {
    use Step::{Call, Change};
    let add_file = |ws: &Path| {
        std::fs::write(ws.join("src/added.txt"), "needle added later\n").unwrap();
    };
    let change_ignore = |ws: &Path| {
        std::fs::write(ws.join(".gitignore"), "*.log\n!keep.log\nsrc/sub/\n").unwrap();
    };
    let remove_folder = |ws: &Path| {
        std::fs::remove_dir_all(ws.join("wide")).unwrap();
    };
    let nested_ignore = |ws: &Path| {
        std::fs::write(ws.join("src/.ignore"), "many.txt\n").unwrap();
    };
    vec![
        (
            "gg",
            vec![
                Call("search", json!({"query": "needle", "limit": 500})),
                Call("search", json!({"query": "needle", "limit": 500})),
                Call(
                    "search",
                    json!({"query": "needle", "path": "src", "limit": 500}),
                ),
                Change(add_file),
                Call("search", json!({"query": "needle", "limit": 500})),
                Change(nested_ignore),
                Call(
                    "search",
                    json!({"query": "needle", "path": "src", "limit": 500}),
                ),
                Change(change_ignore),
                Call("search", json!({"query": "needle", "limit": 500})),
                Change(remove_folder),
                Call("search", json!({"query": "needle", "limit": 500})),
                Call("search", json!({"query": "needle", "limit": 5})),
            ],
        ),
        (
            "coder",
            vec![
                Call("search", json!({"query": "needle"})),
                Call("search", json!({"query": "needle"})),
                Change(add_file),
                Call("search", json!({"query": "needle", "path": "src"})),
                Change(remove_folder),
                Call("search", json!({"query": "needle", "search_paths": true})),
            ],
        ),
        (
            "qwen",
            vec![
                Call("glob", json!({"pattern": "**/*.txt"})),
                Call("grep_search", json!({"pattern": "needle"})),
                Call("glob", json!({"pattern": "**/*.txt"})),
                Change(add_file),
                Call("grep_search", json!({"pattern": "needle"})),
                Call("glob", json!({"pattern": "**/*.txt"})),
                Change(nested_ignore),
                Change(change_ignore),
                Call("grep_search", json!({"pattern": "needle"})),
                Call("glob", json!({"pattern": "**/*"})),
                Change(remove_folder),
                Call("glob", json!({"pattern": "**/*.txt"})),
            ],
        ),
        (
            "picoclaw",
            vec![
                Call("search_files", json!({"pattern": "needle", "limit": 200})),
                Call("search_files", json!({"pattern": "needle", "limit": 200})),
                Change(add_file),
                Call(
                    "search_files",
                    json!({"pattern": "", "target": "files", "limit": 200}),
                ),
                Change(change_ignore),
                Call("search_files", json!({"pattern": "needle", "limit": 200})),
                Change(remove_folder),
                Call("search_files", json!({"pattern": "needle", "limit": 200})),
            ],
        ),
        (
            "sgpt",
            vec![
                Call("search_lores", json!({"query": "needle"})),
                Change(|ws: &Path| {
                    std::fs::write(ws.join("lore/new.md"), "---\ntitle: New needle\n---\n")
                        .unwrap();
                }),
                Call("search_lores", json!({"query": "needle"})),
            ],
        ),
    ]
}

/// Runs `steps` in a server of `profile` started from `bin` on a fresh tree at `ws`; the texts
/// of its answers.
async fn session(
    bin: &Path,
    ws: &Path,
    profile: &str,
    config: &[String],
    steps: &[Step],
) -> Vec<String> {
    let outside = ws.with_file_name("outside");
    let _ = std::fs::remove_dir_all(ws);
    let _ = std::fs::remove_dir_all(&outside);
    generate(ws, &outside);
    // Past the two seconds in which a folder's stamp is not trusted, so listings are kept.
    std::thread::sleep(Duration::from_millis(2100));
    let mut cmd = tokio::process::Command::new(bin);
    cmd.arg("serve")
        .args(["--profile", profile, "--root"])
        .arg(ws)
        .args(config)
        .env("FSGATE_STATE_DIR", ws.with_file_name("state"))
        .current_dir(ws);
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let mut answers = Vec::new();
    for step in steps {
        match step {
            Step::Change(change) => change(ws),
            Step::Call(tool, args) => {
                let limited = args.get("limit").is_some_and(|l| l.as_u64() < Some(100));
                let Value::Object(args) = args.clone() else {
                    panic!("arguments must be an object")
                };
                let result = client
                    .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
                    .await
                    .unwrap();
                let texts: Vec<String> = result
                    .content
                    .iter()
                    .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                    .collect();
                let answer = format!(
                    "{tool} {:?} error={:?}: {}",
                    result.structured_content,
                    result.is_error,
                    texts.join("\n")
                );
                // A limited call may stop before the end of the walk: what it counts as passed
                // over varies from run to run (see `without_skips`).
                answers.push(if limited {
                    without_skips(&answer)
                } else {
                    answer
                });
            }
        }
    }
    client.cancel().await.unwrap();
    answers
}

#[tokio::test]
async fn searches_in_one_server_answer_as_the_baselines_do_as_the_tree_changes() {
    let Some(old) = baseline() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(tmp.path().join("state")).unwrap();
    let sgpt = tmp.path().join("sgpt.toml");
    std::fs::write(&sgpt, "[lore]\nlibraries = [\"lore\"]\n").unwrap();
    let mut diffs = Vec::new();
    for (profile, steps) in sessions() {
        let config = match profile {
            "sgpt" => vec!["--config".to_string(), sgpt.display().to_string()],
            _ => Vec::new(),
        };
        let before = session(&old, &ws, profile, &config, &steps).await;
        let after = session(&new_bin(), &ws, profile, &config, &steps).await;
        for (i, (b, a)) in before.iter().zip(&after).enumerate() {
            let (b2, a2) = ((Some(0), b.clone()), (Some(0), a.clone()));
            if b != a && !says_less_passed_over(&b2, &a2) {
                diffs.push(format!(
                    "{profile} call {i}\n--- before\n{b}\n--- after\n{a}\n"
                ));
            }
        }
        assert_eq!(before.len(), after.len());
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
