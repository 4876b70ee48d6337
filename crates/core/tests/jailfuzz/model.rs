//! The jail fuzzer's model and oracle, shared by the `jailfuzz` test binary (a seeded,
//! time-bounded loop) and the `jailfuzz` cargo-fuzz target (driven by libFuzzer's bytes).
//!
//! One run builds a random tree in a fresh temporary folder:
//!
//! ```text
//! base/root/        the one root of every profile's workspace (gg opened with jail: true)
//! base/grant/       picoclaw's granted folder (allow_read_paths and allow_write_paths)
//! base/grant_swap   a link to base/out, exchanged with base/grant and back by the racer
//! base/out/         outside: sentinel contents, and names no link or argument ever names
//! base/root_evil/   outside, a sibling sharing the root's prefix
//! ```
//!
//! The root and the granted folder get folders, block-formatted files, notebooks, links
//! (relative and absolute, in and out, dangling, loops, to secrets), hard links (to outside files
//! and to secrets), a FIFO, a socket, unreadable entries and secrets under the non-accessible
//! globs. Then it makes random calls of every profile's tools through `Workspace::call`, while a
//! racer thread renames, exchanges (`RENAME_EXCHANGE`), replaces entries by links and back,
//! changes modes and makes hard links inside the root and the granted folder.
//!
//! After every call, with the racer held, the oracle checks:
//!
//! - no output (text, structured, image or resource bytes) holds an outside sentinel
//!   ([`OUT_DATA`], [`HIDDEN`]), a secret's content ([`SECRET_DATA`]), or, from a profile other
//!   than picoclaw, anything of the granted folder ([`GRANT`]);
//! - everything outside (names, kinds, sizes, modes, content hashes, link targets) is as it was;
//! - every secret file is still there (same inode) with its content;
//! - every regular file in the root and the granted folder is a sequence of whole blocks
//!   (`#B<id>` … `#E<id>`) and JSON documents (notebooks): what the fuzzer asked to write, never
//!   a mix or a cut; each block's id is one the fuzzer issued, and a block in the granted folder
//!   was written by picoclaw or was there from the start;
//! - the call returned, without a panic (and within [`CALL_LIMIT`], checked by a watchdog that
//!   aborts the process, since a hung call cannot be unwound).
//!
//! The only other randomness is the racer's timing, so a finding names its seed, the call, the
//! racer's last operations and the calls before it.

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types,
    clippy::too_many_lines
)]

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fsgate_core::config::coder::CoderConfig;
use fsgate_core::ops::version;
use fsgate_core::{
    Content, GgConfig, NativeConfig, Options, PicoclawConfig, QwenConfig, SgptConfig, ToolOutput,
    Workspace,
};
use rustix::fs::{AtFlags, Mode, OFlags, RenameFlags, ResolveFlags};
use serde_json::{Value, json};

/// In every outside file's content.
pub const OUT_DATA: &str = "ZQOUTDATA";
/// In the names of outside entries that no link and no argument names.
pub const HIDDEN: &str = "ZQHIDDEN";
/// In every secret file's content.
pub const SECRET_DATA: &str = "ZQSECRET";
/// In the granted folder's contents and hidden names: only picoclaw may show it.
pub const GRANT: &str = "ZQGRANT";
/// How long one call may take before the watchdog calls it hung.
pub const CALL_LIMIT: Duration = Duration::from_secs(60);

/// The non-accessible globs every profile is configured with.
pub const SECRET_GLOBS: [&str; 3] = ["**/.env", "**/*.pem", "**/*.key"];
const SECRET_NAMES: [&str; 3] = [".env", "k.pem", "id.key"];
const FOLDERS: [&str; 5] = ["d0", "d1", "d2", "src", "locked"];
const FILES: [&str; 7] = [
    "a.txt",
    "b.rs",
    "c.md",
    "e.py",
    "n.ipynb",
    ".gitignore",
    "big.txt",
];
const LINKS: [&str; 5] = ["l0", "l1", "l2", "l3", "l4"];
const NEW_NAMES: [&str; 4] = ["new.txt", "x.txt", "w.ipynb", "nb.ipynb"];

/// A source of choices: a seeded generator, or the fuzzer's bytes.
pub trait Choices {
    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize;
}

impl dyn Choices + '_ {
    /// True with probability `pct`%.
    pub fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }
    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// splitmix64.
#[derive(Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl Choices for Rng {
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The profiles, each a workspace over the same root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum P {
    Gg,
    Coder,
    Qwen,
    Pico,
    Sgpt,
    Native,
}

const PROFILES: [P; 6] = [P::Gg, P::Coder, P::Qwen, P::Pico, P::Sgpt, P::Native];

/// The tools that only read, by profile: a call of one of them (and a native dry run, and a
/// native call that failed) may leave no content that was not there before it.
fn reads_only(p: P, tool: &str, args: &Value) -> bool {
    match p {
        P::Gg => matches!(tool, "read_file" | "list_dir" | "tree" | "search"),
        P::Coder => matches!(
            tool,
            "info" | "read-file" | "search" | "list-folder" | "tree"
        ),
        P::Qwen => matches!(
            tool,
            "list_directory" | "read_file" | "glob" | "grep_search"
        ),
        P::Pico => matches!(tool, "read_file" | "list_dir" | "search_files"),
        P::Sgpt => tool == "read_files",
        P::Native => {
            matches!(
                tool,
                "read_file" | "search" | "glob" | "tree" | "list_dir" | "info"
            ) || args.get("dry_run") == Some(&Value::Bool(true))
        }
    }
}

/// The native tools, for the continuation calls (`more: tool {…}`) native answers end with.
const NATIVE_TOOLS: [&str; 12] = [
    "read_file",
    "edit",
    "apply_patch",
    "write_file",
    "search",
    "glob",
    "tree",
    "list_dir",
    "move",
    "delete",
    "undo",
    "info",
];

/// Who wrote a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    RootFixture,
    GrantFixture,
    Call(P),
}

/// What a run found: the oracle's complaint and how to replay it.
#[derive(Debug)]
pub struct Finding {
    /// The seed of the run.
    pub seed: u64,
    /// What the oracle saw.
    pub what: String,
    /// The call that preceded it.
    pub call: String,
    /// The calls and racer operations before it, oldest first.
    pub log: Vec<String>,
    /// The root and the granted folder as the oracle found them after the call (the racer
    /// held): every entry with its kind, inode, link count and link target.
    pub tree: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "jail fuzzer finding (seed {}): {}", self.seed, self.what)?;
        writeln!(f, "call: {}", self.call)?;
        writeln!(f, "before it (oldest first):")?;
        for line in &self.log {
            writeln!(f, "  {line}")?;
        }
        writeln!(f, "the tree after it:")?;
        f.write_str(&self.tree)?;
        write!(
            f,
            "replay: FSGATE_JAILFUZZ_SEED={} cargo test -p fsgate-core --test jailfuzz -- --nocapture",
            self.seed
        )
    }
}

/// What runs did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Fixtures built (runs).
    pub runs: u64,
    /// Tool calls made.
    pub calls: u64,
    /// Calls that ended in an error result (refusals included).
    pub errors: u64,
    /// Racer operations that changed the tree.
    pub racer_ops: u64,
}

impl Stats {
    /// Adds another run's counts.
    pub fn add(&mut self, other: Stats) {
        self.runs += other.runs;
        self.calls += other.calls;
        self.errors += other.errors;
        self.racer_ops += other.racer_ops;
    }
}

// ---------------------------------------------------------------------------------------------
// The fixture

struct Paths {
    base: PathBuf,
    root: PathBuf,
    grant: PathBuf,
    out: PathBuf,
    evil: PathBuf,
}

impl Paths {
    fn s(p: &Path) -> String {
        p.to_string_lossy().into_owned()
    }
}

/// Issues block ids and remembers who wrote each.
struct Blocks {
    next: u64,
    origin: HashMap<u64, Origin>,
}

impl Blocks {
    fn block(&mut self, origin: Origin, c: &mut dyn Choices, words: usize) -> String {
        let id = self.next;
        self.next += 1;
        self.origin.insert(id, origin);
        let mut s = format!("#B{id}\n");
        for _ in 0..words {
            match origin {
                Origin::GrantFixture => {
                    let _ = writeln!(s, "{GRANT}DATA{id}");
                }
                _ => {
                    let _ = writeln!(s, "{}", word(c));
                }
            }
        }
        let _ = writeln!(s, "#E{id}");
        s
    }

    fn secret(&mut self) -> String {
        let id = self.next;
        self.next += 1;
        self.origin.insert(id, Origin::RootFixture);
        format!("#B{id}\n{SECRET_DATA}{id}\n#E{id}\n")
    }

    fn notebook(&mut self, c: &mut dyn Choices) -> String {
        let cells: Vec<Value> = (0..1 + c.below(3))
            .map(|i| {
                json!({"cell_type": "code", "id": format!("c{i}"), "metadata": {},
                       "source": [format!("{}\n", word(c)), word(c)],
                       "outputs": [], "execution_count": null})
            })
            .collect();
        json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).to_string()
    }
}

fn word(c: &mut dyn Choices) -> String {
    format!("w{}", 100 + c.below(12))
}

/// A secret's name, for the racer to leave alone.
fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == ".env" || lower.ends_with(".pem") || lower.ends_with(".key")
}

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A link target as seen from a folder `depth` levels below `region` (a child of `base`).
fn link_target(c: &mut dyn Choices, paths: &Paths, region: &Path, depth: usize) -> String {
    let up = "../".repeat(depth + 1);
    let s = |p: PathBuf| Paths::s(&p);
    match c.below(16) {
        0 => "a.txt".into(),
        1 => "../a.txt".into(),
        2 => format!("{}d0", "../".repeat(depth)),
        3 => s(region.join("d0")),
        4 => s(region.join("a.txt")),
        5 => format!("{up}out/o1.txt"),
        6 => format!("{up}out"),
        7 => s(paths.out.join("o1.txt")),
        8 => s(paths.out.join("sub")),
        9 => format!("{up}root_evil"),
        10 => "nope".into(),
        11 => s(paths.base.join("nowhere")),
        12 => c.pick(&LINKS).to_string(),
        13 => c.pick(&SECRET_NAMES).to_string(),
        14 => s(paths.grant.join("g1.txt")),
        _ => format!("{up}grant"),
    }
}

struct Fixture {
    _tmp: tempfile::TempDir,
    paths: Paths,
    workspaces: Vec<(P, Workspace)>,
    blocks: Blocks,
    /// The outside as it was: path → description.
    outside: BTreeMap<PathBuf, String>,
    /// (dev, ino) of the outside's files, which hard links in the root share.
    outside_inodes: HashSet<(u64, u64)>,
    /// (dev, ino) → content of every secret file.
    secrets: HashMap<(u64, u64), Vec<u8>>,
    /// What the last walk found: paths below the root, and absolute paths in the granted
    /// folder (anything but folders of fsgate's own).
    known: Vec<String>,
    known_grant: Vec<String>,
    /// The content hashes of every regular file in the root and the granted folder at the last
    /// check: the racer only renames, exchanges and links, so a call that only reads leaves no
    /// content outside this set.
    contents: HashSet<u64>,
    /// The content hashes of every regular file any check of this run saw: what native's undo
    /// may bring back.
    history: HashSet<u64>,
    /// The version tokens (as native shows them) of content no output may show even hashed:
    /// the secrets', the outside files', and (from a profile other than picoclaw) the granted
    /// folder's first files'.
    sealed_versions: Vec<(String, &'static str)>,
    grant_versions: Vec<String>,
    /// Version tokens native answers showed in this run, for `expected_version`.
    versions: Vec<String>,
    /// The continuation (`more: tool {…}`) of native's last answer.
    more: Option<(&'static str, Value)>,
}

fn escape_regex(s: &str) -> String {
    let mut out = String::new();
    for ch in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(ch) {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

fn globs() -> Vec<String> {
    SECRET_GLOBS.iter().map(|g| (*g).to_string()).collect()
}

fn open_workspace(p: P, paths: &Paths) -> Workspace {
    let root = paths.root.clone();
    let mut o = Options::new(&root);
    o.roots = vec![root.clone()];
    o.jail = true;
    // Version tokens on: every read and write of the five profiles then also shows a hash of
    // the file's content, which the oracle checks as it checks native's.
    o.versions = true;
    o.profile = match p {
        P::Gg => GgConfig {
            non_accessible_globs: globs(),
            ..GgConfig::default()
        }
        .into(),
        P::Coder => CoderConfig {
            base_paths: vec![root],
            non_accessible_globs: globs(),
            ..CoderConfig::default()
        }
        .into(),
        P::Qwen => QwenConfig {
            non_accessible_globs: globs(),
            ..QwenConfig::default()
        }
        .into(),
        P::Pico => {
            let grant = format!("^{}(?:/|$)", escape_regex(&Paths::s(&paths.grant)));
            PicoclawConfig {
                non_accessible_globs: globs(),
                allow_read_paths: vec![grant.clone()],
                allow_write_paths: vec![grant],
                ..PicoclawConfig::default()
            }
            .into()
        }
        P::Sgpt => SgptConfig {
            non_accessible_globs: globs(),
            ..SgptConfig::default()
        }
        .into(),
        P::Native => NativeConfig {
            non_accessible_globs: globs(),
            ..NativeConfig::default()
        }
        .into(),
    };
    Workspace::open(o).unwrap()
}

impl Fixture {
    fn build(c: &mut dyn Choices) -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let paths = Paths {
            root: base.join("root"),
            grant: base.join("grant"),
            out: base.join("out"),
            evil: base.join("root_evil"),
            base,
        };
        let mut blocks = Blocks {
            next: 1,
            origin: HashMap::new(),
        };
        // Outside.
        let mut n = 0;
        let mut out_file = |p: PathBuf| {
            n += 1;
            write(&p, &format!("{OUT_DATA}{n}\n"));
        };
        out_file(paths.out.join("o1.txt"));
        out_file(paths.out.join("o2.txt"));
        out_file(paths.out.join("sub/o3.txt"));
        out_file(paths.out.join(".env"));
        out_file(paths.out.join(format!("{HIDDEN}1.txt")));
        out_file(paths.out.join(format!("sub/{HIDDEN}2/f.txt")));
        out_file(paths.evil.join("e1.txt"));
        out_file(paths.evil.join(format!("{HIDDEN}3.txt")));
        // The granted folder.
        std::fs::create_dir_all(paths.grant.join("gsub")).unwrap();
        for rel in ["g1.txt", "gsub/g2.txt", &format!("{GRANT}HIDDEN1.txt")] {
            write(
                &paths.grant.join(rel),
                &blocks.block(Origin::GrantFixture, c, 2),
            );
        }
        std::os::unix::fs::symlink(&paths.out, paths.base.join("grant_swap")).unwrap();
        // The root.
        std::fs::create_dir_all(&paths.root).unwrap();
        let mut folders: Vec<(PathBuf, usize)> = vec![(paths.root.clone(), 0)];
        for _ in 0..2 + c.below(5) {
            let (parent, depth) = folders[c.below(folders.len())].clone();
            if depth < 3 {
                let dir = parent.join(c.pick(&FOLDERS));
                if std::fs::create_dir_all(&dir).is_ok() && !folders.iter().any(|(d, _)| *d == dir)
                {
                    folders.push((dir, depth + 1));
                }
            }
        }
        let mut secrets = HashMap::new();
        for _ in 0..4 + c.below(8) {
            let (dir, _) = &folders[c.below(folders.len())];
            let name = *c.pick(&FILES);
            let p = dir.join(name);
            if p.exists() {
                continue;
            }
            let content = if name.ends_with(".ipynb") {
                blocks.notebook(c)
            } else {
                let words = if name == "big.txt" {
                    20_000
                } else {
                    1 + c.below(6)
                };
                blocks.block(Origin::RootFixture, c, words)
            };
            write(&p, &content);
        }
        // a.txt at the top, as links name it.
        if !paths.root.join("a.txt").exists() {
            write(
                &paths.root.join("a.txt"),
                &blocks.block(Origin::RootFixture, c, 3),
            );
        }
        for name in SECRET_NAMES.iter().take(1 + c.below(3)) {
            let (dir, _) = &folders[c.below(folders.len())];
            let p = dir.join(name);
            if p.exists() {
                continue;
            }
            write(&p, &blocks.secret());
        }
        for _ in 0..2 + c.below(6) {
            let (dir, depth) = &folders[c.below(folders.len())];
            let p = dir.join(c.pick(&LINKS));
            let target = link_target(c, &paths, &paths.root, *depth);
            let _ = std::os::unix::fs::symlink(target, p);
        }
        // Links in the granted folder too.
        for name in ["gl0", "gl1"] {
            let target = link_target(c, &paths, &paths.grant, 0);
            let _ = std::os::unix::fs::symlink(target, paths.grant.join(name));
        }
        // Hard links: to an outside file, and to a secret.
        let (dir, _) = &folders[c.below(folders.len())];
        let _ = std::fs::hard_link(paths.out.join("o2.txt"), dir.join("h_out.txt"));
        if c.chance(50) {
            let _ = std::fs::hard_link(paths.out.join("sub/o3.txt"), paths.grant.join("gh.txt"));
        }
        // A FIFO, a socket, unreadable entries.
        let (dir, _) = &folders[c.below(folders.len())];
        let _ = rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.join("p.fifo"),
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        );
        let (dir, _) = &folders[c.below(folders.len())];
        drop(std::os::unix::net::UnixListener::bind(dir.join("s.sock")));
        if paths.root.join("locked").is_dir() {
            std::fs::set_permissions(
                paths.root.join("locked"),
                std::fs::Permissions::from_mode(0o000),
            )
            .unwrap();
        }
        let (dir, _) = &folders[c.below(folders.len())];
        let unreadable = dir.join("u.txt");
        write(&unreadable, &blocks.block(Origin::RootFixture, c, 1));
        std::fs::set_permissions(&unreadable, std::fs::Permissions::from_mode(0o000)).unwrap();
        // The secrets, by inode (hard links to them made later share it).
        let mut stack = vec![paths.root.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                let m = std::fs::symlink_metadata(&p).unwrap();
                if m.is_dir() {
                    stack.push(p);
                } else if m.is_file() && is_secret_name(&p.file_name().unwrap().to_string_lossy()) {
                    secrets.insert((m.dev(), m.ino()), std::fs::read(&p).unwrap());
                }
            }
        }
        let (outside, outside_inodes) = snapshot_outside(&paths);
        let mut sealed_versions: Vec<(String, &'static str)> = secrets
            .values()
            .map(|bytes| (version::of(bytes), "a secret's"))
            .collect();
        let mut stack = vec![paths.out.clone(), paths.evil.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                let m = std::fs::symlink_metadata(&p).unwrap();
                if m.is_dir() {
                    stack.push(p);
                } else if m.is_file() {
                    let bytes = std::fs::read(&p).unwrap();
                    sealed_versions.push((version::of(&bytes), "an outside file's"));
                }
            }
        }
        let mut grant_versions = Vec::new();
        let mut stack = vec![paths.grant.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                let m = std::fs::symlink_metadata(&p).unwrap();
                if m.is_dir() {
                    stack.push(p);
                } else if m.is_file() {
                    grant_versions.push(version::of(&std::fs::read(&p).unwrap()));
                }
            }
        }
        let workspaces = PROFILES
            .iter()
            .map(|&p| (p, open_workspace(p, &paths)))
            .collect();
        Fixture {
            _tmp: tmp,
            paths,
            workspaces,
            blocks,
            outside,
            outside_inodes,
            secrets,
            known: Vec::new(),
            known_grant: Vec::new(),
            contents: HashSet::new(),
            history: HashSet::new(),
            sealed_versions,
            grant_versions,
            versions: Vec::new(),
            more: None,
        }
    }
}

fn describe(path: &Path) -> Option<(String, Option<(u64, u64)>)> {
    let m = std::fs::symlink_metadata(path).ok()?;
    let mode = m.permissions().mode() & 0o7777;
    let ft = m.file_type();
    Some(if ft.is_symlink() {
        (
            format!("link -> {}", std::fs::read_link(path).ok()?.display()),
            None,
        )
    } else if ft.is_dir() {
        (format!("dir {mode:o}"), None)
    } else if ft.is_file() {
        let content = std::fs::read(path).ok()?;
        (
            format!("file {mode:o} {} {:x}", m.len(), fnv(&content)),
            Some((m.dev(), m.ino())),
        )
    } else {
        (format!("special {mode:o}"), None)
    })
}

fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Everything outside: the base folder's names, and all of `out` and `root_evil`.
fn snapshot_outside(paths: &Paths) -> (BTreeMap<PathBuf, String>, HashSet<(u64, u64)>) {
    let mut snap = BTreeMap::new();
    let mut inodes = HashSet::new();
    for e in std::fs::read_dir(&paths.base).unwrap() {
        let p = e.unwrap().path();
        let kind = std::fs::symlink_metadata(&p)
            .map(|m| format!("{:?}", m.file_type()))
            .unwrap_or_default();
        snap.insert(p, kind);
    }
    let mut stack = vec![paths.out.clone(), paths.evil.clone()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            snap.insert(d, "unreadable".into());
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if let Some((desc, ino)) = describe(&p) {
                if desc.starts_with("dir") {
                    stack.push(p.clone());
                }
                inodes.extend(ino);
                snap.insert(p, desc);
            }
        }
    }
    (snap, inodes)
}

// ---------------------------------------------------------------------------------------------
// The racer

/// Shared between the caller and the racer: the racer works while `pause` is false and holds
/// `lock` for each operation, so the oracle sees a tree at rest.
struct RacerCtl {
    stop: AtomicBool,
    pause: AtomicBool,
    lock: Mutex<VecDeque<String>>,
    ops: AtomicU64,
}

impl RacerCtl {
    fn hold(&self) -> std::sync::MutexGuard<'_, VecDeque<String>> {
        self.pause.store(true, Ordering::SeqCst);
        self.lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

struct Racer {
    rng: Rng,
    base: OwnedFd,
    regions: Vec<(OwnedFd, PathBuf)>,
    base_path: PathBuf,
    paths: Paths,
    outside_inodes: HashSet<(u64, u64)>,
    stash: Vec<(usize, String, String, String)>,
    counter: u64,
}

fn dir_beneath(region: &OwnedFd, rel: &str) -> Option<OwnedFd> {
    if rel.is_empty() {
        return rustix::fs::openat(
            region,
            ".",
            OFlags::DIRECTORY | OFlags::RDONLY,
            Mode::empty(),
        )
        .ok();
    }
    rustix::fs::openat2(
        region,
        rel,
        OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    )
    .ok()
}

/// The names in a folder, each with whether it is a real folder.
fn entries(dir: &OwnedFd) -> Vec<(String, bool)> {
    let Ok(d) = rustix::fs::Dir::read_from(dir) else {
        return Vec::new();
    };
    d.filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_str().ok()?.to_string();
            (name != "." && name != "..")
                .then_some((name, e.file_type() == rustix::fs::FileType::Directory))
        })
        .collect()
}

impl Racer {
    /// A random real folder of a region (never through a link), as (fd, path below the region,
    /// depth).
    fn folder(&mut self, region: usize) -> Option<(OwnedFd, String, usize)> {
        let mut rel = String::new();
        let mut depth = 0;
        loop {
            let fd = dir_beneath(&self.regions[region].0, &rel)?;
            let subs: Vec<String> = entries(&fd)
                .into_iter()
                .filter(|(n, d)| *d && !n.starts_with(".fsgate") && !n.starts_with(".picoclaw"))
                .map(|(n, _)| n)
                .collect();
            if subs.is_empty() || depth >= 3 || (&mut self.rng as &mut dyn Choices).chance(40) {
                return Some((fd, rel, depth));
            }
            let sub = (&mut self.rng as &mut dyn Choices).pick(&subs).clone();
            rel = if rel.is_empty() {
                sub
            } else {
                format!("{rel}/{sub}")
            };
            depth += 1;
        }
    }

    fn pick_name(&mut self, list: &[&(String, bool)]) -> Option<String> {
        (!list.is_empty()).then(|| list[self.rng.below(list.len())].0.clone())
    }

    fn fresh_name(&mut self) -> String {
        self.counter += 1;
        let names = [
            "a.txt", "b.rs", "d0", "d1", "l0", "n.ipynb", "moved", "x.txt",
        ];
        if (&mut self.rng as &mut dyn Choices).chance(70) {
            (*(&mut self.rng as &mut dyn Choices).pick(&names)).to_string()
        } else {
            format!("r{}", self.counter)
        }
    }

    /// One operation; a description of what it did, if anything.
    fn step(&mut self) -> Option<String> {
        let region = self.rng.below(self.regions.len());
        let region_path = self.regions[region].1.clone();
        let op = self.rng.below(100);
        if op < 4 {
            // Exchange the granted folder itself with a link to the outside, and back.
            let a = rustix::fs::renameat_with(
                &self.base,
                "grant",
                &self.base,
                "grant_swap",
                RenameFlags::EXCHANGE,
            );
            std::thread::yield_now();
            let b = rustix::fs::renameat_with(
                &self.base,
                "grant",
                &self.base,
                "grant_swap",
                RenameFlags::EXCHANGE,
            );
            assert!(
                a.is_ok() == b.is_ok(),
                "racer: the granted folder was left swapped"
            );
            return Some("exchange grant <-> grant_swap and back".into());
        }
        let (dir, rel, depth) = self.folder(region)?;
        let names = entries(&dir);
        let movable: Vec<&(String, bool)> = names
            .iter()
            .filter(|(n, _)| !is_secret_name(n) && !n.starts_with(".zqstash"))
            .collect();
        let at = |name: &str| {
            if rel.is_empty() {
                name.to_string()
            } else {
                format!("{rel}/{name}")
            }
        };
        let region_name = region_path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        match op {
            4..=13 => {
                // Rename within the folder or into another of the region.
                let name = self.pick_name(&movable)?;
                let to = self.fresh_name();
                let (dest, dest_rel, _) = self.folder(region)?;
                rustix::fs::renameat(&dir, name.as_str(), &dest, to.as_str()).ok()?;
                Some(format!(
                    "{region_name}: rename {} -> {}",
                    at(&name),
                    if dest_rel.is_empty() {
                        to
                    } else {
                        format!("{dest_rel}/{to}")
                    }
                ))
            }
            14..=33 => {
                // Exchange two entries (files, folders, links) atomically, and half the time
                // back again at once.
                if movable.len() < 2 {
                    return None;
                }
                let a = (&mut self.rng as &mut dyn Choices).pick(&movable).0.clone();
                let b = (&mut self.rng as &mut dyn Choices).pick(&movable).0.clone();
                rustix::fs::renameat_with(
                    &dir,
                    a.as_str(),
                    &dir,
                    b.as_str(),
                    RenameFlags::EXCHANGE,
                )
                .ok()?;
                let back = (&mut self.rng as &mut dyn Choices).chance(50);
                // A third of those flip the two for up to a few milliseconds first, as fast as
                // it goes: a call that checks a folder and then works on it by its name meets
                // the other one (how a recursive delete once lost a secret).
                let flip = back && (&mut self.rng as &mut dyn Choices).chance(33);
                let exchange = || {
                    rustix::fs::renameat_with(
                        &dir,
                        a.as_str(),
                        &dir,
                        b.as_str(),
                        RenameFlags::EXCHANGE,
                    )
                };
                if flip {
                    let until = Instant::now()
                        + Duration::from_micros(200 + 50 * self.rng.below(80) as u64);
                    while Instant::now() < until {
                        let _ = exchange();
                        let _ = exchange();
                    }
                }
                if back {
                    std::thread::yield_now();
                    let _ = exchange();
                }
                Some(format!(
                    "{region_name}: exchange {} <-> {}{}",
                    at(&a),
                    at(&b),
                    match (back, flip) {
                        (true, true) => " back and forth for a while, and back",
                        (true, false) => " and back",
                        _ => "",
                    }
                ))
            }
            34..=48 => {
                // Replace an entry by a link (the entry kept aside), to put back at once or later.
                let name = self.pick_name(&movable)?;
                self.counter += 1;
                let stash = format!(".zqstash{}", self.counter);
                let target = link_target(&mut self.rng, &self.paths, &region_path, depth);
                rustix::fs::renameat(&dir, name.as_str(), &dir, stash.as_str()).ok()?;
                if rustix::fs::symlinkat(target.as_str(), &dir, name.as_str()).is_err() {
                    let _ = rustix::fs::renameat(&dir, stash.as_str(), &dir, name.as_str());
                    return None;
                }
                if (&mut self.rng as &mut dyn Choices).chance(50) {
                    std::thread::yield_now();
                    let _ = rustix::fs::renameat(&dir, stash.as_str(), &dir, name.as_str());
                    return Some(format!(
                        "{region_name}: {} replaced by a link to {target} and back",
                        at(&name)
                    ));
                }
                self.stash
                    .push((region, rel.clone(), stash.clone(), name.clone()));
                Some(format!(
                    "{region_name}: {} replaced by a link to {target} ({} kept)",
                    at(&name),
                    at(&stash)
                ))
            }
            49..=63 => {
                // Put a stashed entry back over whatever is at its name now (if that is a link
                // or nothing).
                if self.stash.is_empty() {
                    return None;
                }
                let (r, srel, stash, name) =
                    self.stash.swap_remove(self.rng.below(self.stash.len()));
                let d = dir_beneath(&self.regions[r].0, &srel)?;
                if let Ok(st) = rustix::fs::statat(&d, name.as_str(), AtFlags::SYMLINK_NOFOLLOW)
                    && rustix::fs::FileType::from_raw_mode(st.st_mode)
                        == rustix::fs::FileType::Symlink
                {
                    let _ = rustix::fs::unlinkat(&d, name.as_str(), AtFlags::empty());
                }
                rustix::fs::renameat_with(
                    &d,
                    stash.as_str(),
                    &d,
                    name.as_str(),
                    RenameFlags::NOREPLACE,
                )
                .ok()?;
                Some(format!("{srel}: stash {stash} put back as {name}"))
            }
            64..=73 => {
                // Change a mode, through a descriptor of the entry itself (never a link's target,
                // never an outside file shared by a hard link).
                let name = self.pick_name(&movable)?;
                let fd = rustix::fs::openat(
                    &dir,
                    name.as_str(),
                    OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .ok()?;
                let st = rustix::fs::fstat(&fd).ok()?;
                if self.outside_inodes.contains(&(st.st_dev, st.st_ino)) {
                    return None;
                }
                let mode = *(&mut self.rng as &mut dyn Choices)
                    .pick(&[0o000, 0o444, 0o644, 0o755, 0o700, 0o200, 0o4755]);
                rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode)).ok()?;
                Some(format!("{region_name}: chmod {mode:o} {}", at(&name)))
            }
            74..=76 => {
                // A hard link to an entry (a secret too: the alias has an innocent name).
                let all: Vec<&(String, bool)> = names.iter().filter(|(_, d)| !*d).collect();
                let name = self.pick_name(&all)?;
                let to = self.fresh_name();
                let (dest, dest_rel, _) = self.folder(region)?;
                rustix::fs::linkat(&dir, name.as_str(), &dest, to.as_str(), AtFlags::empty())
                    .ok()?;
                Some(format!(
                    "{region_name}: hard link {} as {dest_rel}/{to}",
                    at(&name)
                ))
            }
            _ => {
                // A folder exchanged with a link out, back and forth: the classic race.
                let dirs: Vec<&(String, bool)> =
                    movable.iter().copied().filter(|(_, d)| *d).collect();
                let name = self.pick_name(&dirs)?;
                self.counter += 1;
                let link = format!(".zqswap{}", self.counter);
                let target = link_target(&mut self.rng, &self.paths, &region_path, depth);
                rustix::fs::symlinkat(target.as_str(), &dir, link.as_str()).ok()?;
                // Flip it for up to a few milliseconds, as fast as it goes (an even number of
                // times, so it ends as it began).
                let until =
                    Instant::now() + Duration::from_micros(200 + 50 * self.rng.below(80) as u64);
                while Instant::now() < until {
                    let _ = rustix::fs::renameat_with(
                        &dir,
                        name.as_str(),
                        &dir,
                        link.as_str(),
                        RenameFlags::EXCHANGE,
                    );
                    let _ = rustix::fs::renameat_with(
                        &dir,
                        name.as_str(),
                        &dir,
                        link.as_str(),
                        RenameFlags::EXCHANGE,
                    );
                }
                let _ = rustix::fs::unlinkat(&dir, link.as_str(), AtFlags::empty());
                Some(format!(
                    "{region_name}: {} flipped with a link to {target} for a while",
                    at(&name)
                ))
            }
        }
    }
}

fn spawn_racer(ctl: Arc<RacerCtl>, mut racer: Racer) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let _ = &racer.base_path;
        while !ctl.stop.load(Ordering::SeqCst) {
            if ctl.pause.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_micros(50));
                continue;
            }
            let mut log = ctl
                .lock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if ctl.pause.load(Ordering::SeqCst) {
                continue;
            }
            if let Some(what) = racer.step() {
                ctl.ops.fetch_add(1, Ordering::Relaxed);
                if log.len() >= 12 {
                    log.pop_front();
                }
                log.push_back(format!("racer: {what}"));
            }
            drop(log);
            // A few operations per call, not a flood: the tree must stay usable enough for
            // calls to succeed as well as fail.
            std::thread::sleep(Duration::from_micros(1500));
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Calls

struct Gen<'a> {
    c: &'a mut dyn Choices,
    paths: &'a Paths,
    known: &'a [String],
    known_grant: &'a [String],
    /// Version tokens native showed in this run.
    versions: &'a [String],
    /// Version tokens of sealed content (secrets, outside files), to pass as an attack.
    sealed: &'a [(String, &'static str)],
}

impl Gen<'_> {
    fn rel(&mut self) -> String {
        if !self.known.is_empty() && self.c.chance(55) {
            let mut s = self.c.pick(self.known).clone();
            if self.c.chance(10) {
                s.push('/');
                let f: &str = self.c.pick::<&str>(&FILES);
                s.push_str(f);
            }
            return s;
        }
        let n = 1 + self.c.below(3);
        let mut parts: Vec<String> = Vec::new();
        for i in 0..n {
            let last = i + 1 == n;
            let part = match self.c.below(12) {
                0 => "..".to_string(),
                1 => ".".to_string(),
                2..=4 => self.c.pick(&FOLDERS).to_string(),
                5 | 6 => self.c.pick(&LINKS).to_string(),
                7 if last => self.c.pick(&SECRET_NAMES).to_string(),
                8 if last => self.c.pick(&NEW_NAMES).to_string(),
                9 if !last => "sub".to_string(),
                _ => self.c.pick(&FILES).to_string(),
            };
            parts.push(part);
        }
        let mut s = parts.join("/");
        if self.c.chance(3) {
            s.push('/');
        }
        s
    }

    /// A path meant to leave the root (or reach the granted folder).
    fn attack(&mut self) -> String {
        let p = self.paths;
        let s = |x: PathBuf| Paths::s(&x);
        match self.c.below(16) {
            0 => "../out/o1.txt".into(),
            1 => "../out".into(),
            2 => "d0/../../out/o2.txt".into(),
            3 => "../root_evil/e1.txt".into(),
            4 => s(p.out.join("o1.txt")),
            5 => s(p.out.clone()),
            6 => s(p.out.join("sub")),
            7 => s(p.evil.clone()),
            8 => s(p.evil.join("e1.txt")),
            9 => format!("{}/../out/o1.txt", s(p.root.clone())),
            10 => format!("/proc/self/root{}", s(p.out.join("o1.txt"))),
            11 => format!("{}_evil/e1.txt", s(p.root.clone())),
            12 => s(p.grant.join("g1.txt")),
            13 => s(p
                .grant
                .join(self.c.pick(&["gsub", "gl0", "gl1", "new.txt", "gh.txt"]))),
            14 => s(p.base.join("grant_swap/o1.txt")),
            _ => "l0/o1.txt".into(),
        }
    }

    /// A path for profile `p`: mostly inside (absolute for qwen, which wants them), sometimes an
    /// attack.
    fn path(&mut self, p: P) -> String {
        if p == P::Pico && !self.known_grant.is_empty() && self.c.chance(15) {
            return self.c.pick(self.known_grant).clone();
        }
        if self.c.chance(25) {
            return self.attack();
        }
        let rel = self.rel();
        if p == P::Qwen || self.c.chance(10) {
            Paths::s(&self.paths.root.join(rel))
        } else {
            rel
        }
    }

    fn folder(&mut self, p: P) -> String {
        if self.c.chance(30) {
            return if p == P::Qwen {
                Paths::s(&self.paths.root)
            } else {
                ".".into()
            };
        }
        self.path(p)
    }

    fn query(&mut self) -> String {
        (*self.c.pick(&[
            "ZQ", "w1", "w10[0-9]", ".", "DATA", "SECRET", "#B", "ZQ|w11", "o1",
        ]))
        .to_string()
    }

    /// An `expected_version`: mostly one native showed, sometimes a sealed content's, a
    /// well-formed stranger, or malformed.
    fn version(&mut self) -> String {
        match self.c.below(10) {
            0..=5 if !self.versions.is_empty() => self.c.pick(self.versions).clone(),
            6 if !self.sealed.is_empty() => self.c.pick(self.sealed).0.clone(),
            7 => "v12".into(),
            _ => "v000000000000".into(),
        }
    }

    fn glob(&mut self) -> String {
        (*self.c.pick(&[
            "**/*", "*", "**/*.txt", "**/.env", "../**/*", "**/o1*", "*/*",
        ]))
        .to_string()
    }
}

/// One random call of profile `p`: (tool, arguments, ids of the blocks it writes).
fn gen_call(g: &mut Gen<'_>, blocks: &mut Blocks, p: P) -> (&'static str, Value) {
    let origin = Origin::Call(p);
    let words = |g: &mut Gen<'_>| {
        if g.c.chance(10) {
            5_000
        } else {
            1 + g.c.below(5)
        }
    };
    match p {
        P::Gg => match g.c.below(6) {
            0 => {
                let mut a = json!({"path": g.path(p)});
                if g.c.chance(30) {
                    a["offset"] = json!(1 + g.c.below(3));
                    a["limit"] = json!(1 + g.c.below(5));
                }
                ("read_file", a)
            }
            1 => {
                let n = words(g);
                let content = blocks.block(origin, g.c, n);
                ("write_file", json!({"path": g.path(p), "content": content}))
            }
            2 => (
                "edit_file",
                json!({"path": g.path(p), "old_string": word(g.c), "new_string": word(g.c)}),
            ),
            3 => ("list_dir", json!({"path": g.folder(p)})),
            4 => (
                "tree",
                json!({"path": g.folder(p), "depth": 1 + g.c.below(6)}),
            ),
            _ => ("search", json!({"query": g.query(), "path": g.folder(p)})),
        },
        P::Coder => {
            let mut a = match g.c.below(9) {
                0 => ("info", json!({})),
                1 => {
                    if g.c.chance(30) {
                        ("read-file", json!({"paths": [g.path(p), g.path(p)]}))
                    } else {
                        (
                            "read-file",
                            json!({"path": g.path(p), "stat": g.c.chance(20)}),
                        )
                    }
                }
                2 => (
                    "search",
                    json!({"query": g.query(), "path": g.folder(p), "regex": true,
                           "search_content": g.c.chance(70), "search_paths": g.c.chance(50),
                           "include_globs": if g.c.chance(30) { json!([g.glob()]) } else { json!([]) }}),
                ),
                3 => {
                    let op = if g.c.chance(70) {
                        json!({"op": "replace", "pattern": word(g.c), "replacement": word(g.c)})
                    } else {
                        let n = words(g);
                        json!({"op": "insert", "at_line": 1, "content": blocks.block(origin, g.c, n)})
                    };
                    (
                        "update-file",
                        json!({"files": [{"path": g.path(p), "ops": [op]}]}),
                    )
                }
                4 => {
                    let n = words(g);
                    let mut f = json!({"path": g.path(p), "content": blocks.block(origin, g.c, n),
                                       "overwrite": g.c.chance(60)});
                    if g.c.chance(20) {
                        f["mode"] = json!(*g.c.pick(&["0600", "0755", "4755", "0000"]));
                    }
                    ("create-file", json!({"files": [f]}))
                }
                5 => (
                    "delete-file",
                    json!({"paths": [g.path(p)], "recursive": g.c.chance(40)}),
                ),
                6 => (
                    "move",
                    json!({"files": [{"from": g.path(p), "to": g.path(p), "overwrite": g.c.chance(50)}]}),
                ),
                7 => ("list-folder", json!({"path": g.folder(p)})),
                _ => (
                    "tree",
                    json!({"path": g.folder(p), "max_depth": 1 + g.c.below(5)}),
                ),
            };
            if g.c.chance(10) && a.0 != "info" {
                a.1["base_dir"] = json!(*g.c.pick(&["d0", "l0", "../out", "d0/l1"]));
            }
            a
        }
        P::Qwen => match g.c.below(7) {
            0 => ("list_directory", json!({"path": g.folder(p)})),
            1 => ("read_file", json!({"path": g.path(p)})),
            2 => {
                let notebooks: Vec<&String> =
                    g.known.iter().filter(|k| k.ends_with(".ipynb")).collect();
                let path = if !notebooks.is_empty() && g.c.chance(70) {
                    Paths::s(&g.paths.root.join(g.c.pick(&notebooks)))
                } else {
                    g.path(p)
                };
                let mut a = json!({"notebook_path": path, "new_source": word(g.c)});
                match g.c.below(3) {
                    0 => {
                        a["edit_mode"] = json!("insert");
                        a["cell_type"] = json!("code");
                    }
                    1 => a["cell_id"] = json!(format!("c{}", g.c.below(3))),
                    _ => {
                        a["edit_mode"] = json!("delete");
                        a["cell_id"] = json!("c0");
                    }
                }
                ("notebook_edit", a)
            }
            3 => {
                let n = words(g);
                let content = blocks.block(origin, g.c, n);
                (
                    "write_file",
                    json!({"file_path": g.path(p), "content": content}),
                )
            }
            4 => ("glob", json!({"pattern": g.glob(), "path": g.folder(p)})),
            5 => (
                "grep_search",
                json!({"pattern": g.query(), "path": g.folder(p)}),
            ),
            _ => {
                if g.c.chance(15) {
                    let n = words(g);
                    let content = blocks.block(origin, g.c, n);
                    (
                        "edit",
                        json!({"file_path": g.path(p), "old_string": "", "new_string": content}),
                    )
                } else {
                    (
                        "edit",
                        json!({"file_path": g.path(p), "old_string": word(g.c),
                                    "new_string": word(g.c), "replace_all": g.c.chance(30)}),
                    )
                }
            }
        },
        P::Pico => match g.c.below(6) {
            0 => ("read_file", json!({"path": g.path(p)})),
            1 => {
                let n = words(g);
                let content = blocks.block(origin, g.c, n);
                (
                    "write_file",
                    json!({"path": g.path(p), "content": content, "overwrite": g.c.chance(60)}),
                )
            }
            2 => {
                if g.c.chance(50) {
                    (
                        "edit_file",
                        json!({"path": g.path(p), "old_text": word(g.c), "new_text": word(g.c)}),
                    )
                } else {
                    let path = g.path(p);
                    let patch = format!(
                        "*** Begin Patch\n*** Update File: {path}\n@@\n-{}\n+{}\n*** End Patch\n",
                        word(g.c),
                        word(g.c)
                    );
                    ("edit_file", json!({"path": path, "patch": patch}))
                }
            }
            3 => {
                let n = words(g);
                let content = blocks.block(origin, g.c, n);
                (
                    "append_file",
                    json!({"path": g.path(p), "content": content}),
                )
            }
            4 => ("list_dir", json!({"path": g.folder(p)})),
            _ => {
                let mut a = json!({"pattern": g.query(), "path": g.folder(p)});
                if g.c.chance(40) {
                    a["target"] = json!("files");
                    a["pattern"] = json!(g.glob());
                }
                ("search_files", a)
            }
        },
        P::Native => native_call(g, blocks),
        P::Sgpt => match g.c.below(3) {
            0 => ("read_files", json!({"paths": [g.path(p), g.path(p)]})),
            1 => {
                let path = g.path(p);
                let diff = if g.c.chance(40) {
                    let n = 1 + g.c.below(4);
                    let block = blocks.block(origin, g.c, n);
                    let lines: Vec<&str> = block.lines().collect();
                    let mut d = format!(
                        "--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{} @@\n",
                        lines.len()
                    );
                    for l in lines {
                        let _ = writeln!(d, "+{l}");
                    }
                    d
                } else {
                    format!(
                        "--- a/{path}\n+++ b/{path}\n@@ -2 +2 @@\n-{}\n+{}\n",
                        word(g.c),
                        word(g.c)
                    )
                };
                ("diff", json!({"path": path, "diff": diff}))
            }
            _ => (
                "replace",
                json!({"path": g.path(p), "patches": [{"search": word(g.c), "replace": word(g.c)}]}),
            ),
        },
    }
}

/// One random call of the native profile.
fn native_call(g: &mut Gen<'_>, blocks: &mut Blocks) -> (&'static str, Value) {
    let p = P::Native;
    let origin = Origin::Call(p);
    let words = |g: &mut Gen<'_>| {
        if g.c.chance(10) {
            5_000
        } else {
            1 + g.c.below(5)
        }
    };
    // A whole-line quote of the files' words, and text to put in its place.
    let old_text = |g: &mut Gen<'_>| match g.c.below(10) {
        0 => format!("{}\n{}", word(g.c), word(g.c)),
        1 => String::new(),
        _ => word(g.c),
    };
    let dry = |g: &mut Gen<'_>, a: &mut Value| {
        if g.c.chance(25) {
            a["dry_run"] = json!(true);
        }
    };
    match g.c.below(14) {
        0 | 1 => {
            let mut a = json!({"path": g.path(p)});
            if g.c.chance(30) {
                a["offset"] = json!(1 + g.c.below(3));
                a["limit"] = json!(1 + g.c.below(6));
            }
            if g.c.chance(10) {
                a["line_numbers"] = json!(false);
            }
            if g.c.chance(10) {
                a["outline"] = json!(true);
            }
            ("read_file", a)
        }
        2 | 3 => {
            let edits: Vec<Value> = (0..1 + g.c.below(3))
                .map(|_| {
                    let mut e = json!({"old_text": old_text(g), "new_text": word(g.c)});
                    if g.c.chance(20) {
                        e["line_hint"] = json!(1 + g.c.below(8));
                    }
                    if g.c.chance(20) {
                        e["replace_all"] = json!(true);
                    }
                    e
                })
                .collect();
            let mut a = json!({"path": g.path(p), "edits": edits});
            if g.c.chance(30) {
                a["expected_version"] = json!(g.version());
            }
            dry(g, &mut a);
            ("edit", a)
        }
        4 | 5 => {
            let patch = if g.c.chance(60) {
                v4a_patch(g, blocks)
            } else {
                unified_patch(g, blocks)
            };
            let mut a = json!({"patch": patch});
            dry(g, &mut a);
            ("apply_patch", a)
        }
        6 => {
            let n = words(g);
            let mut a = json!({"path": g.path(p), "content": blocks.block(origin, g.c, n)});
            if g.c.chance(80) {
                a["mode"] = json!(*g.c.pick(&["create", "overwrite", "append"]));
            }
            if g.c.chance(20) {
                a["expected_version"] = json!(g.version());
            }
            ("write_file", a)
        }
        7 => {
            let mut a = json!({"pattern": g.query(), "path": g.folder(p)});
            if g.c.chance(20) {
                a["literal"] = json!(true);
            }
            if g.c.chance(20) {
                a["case_insensitive"] = json!(true);
            }
            if g.c.chance(20) {
                a["glob"] = json!([g.glob(), *g.c.pick(&["!**/*.md", "*.txt", "!d0/**"])]);
            }
            if g.c.chance(20) {
                a["context"] = json!(g.c.below(4));
            }
            if g.c.chance(30) {
                a["mode"] = json!(*g.c.pick(&["lines", "files", "count"]));
            }
            if g.c.chance(20) {
                a["limit"] = json!(1 + g.c.below(5));
            }
            if g.c.chance(10) {
                a["cursor"] = json!(format!("c{}", g.c.below(6)));
            }
            ("search", a)
        }
        8 => {
            let mut a = json!({"pattern": g.glob(), "path": g.folder(p)});
            if g.c.chance(20) {
                a["limit"] = json!(1 + g.c.below(5));
            }
            if g.c.chance(10) {
                a["cursor"] = json!(format!("c{}", g.c.below(6)));
            }
            ("glob", a)
        }
        9 => {
            if g.c.chance(50) {
                (
                    "tree",
                    json!({"path": g.folder(p), "depth": 1 + g.c.below(6)}),
                )
            } else {
                ("list_dir", json!({"path": g.folder(p)}))
            }
        }
        10 => (
            "move",
            json!({"from": g.path(p), "to": g.path(p), "overwrite": g.c.chance(40)}),
        ),
        11 => (
            "delete",
            json!({"path": g.path(p), "recursive": g.c.chance(50)}),
        ),
        12 => {
            if g.c.chance(50) {
                ("undo", json!({}))
            } else {
                ("undo", json!({"steps": 1 + g.c.below(3)}))
            }
        }
        _ => ("info", json!({"path": g.path(p)})),
    }
}

/// A V4A envelope of one to three sections: updates (a line replaced, sometimes moved),
/// additions (a new block) and deletions.
fn v4a_patch(g: &mut Gen<'_>, blocks: &mut Blocks) -> String {
    let p = P::Native;
    let mut patch = String::from("*** Begin Patch\n");
    for _ in 0..1 + g.c.below(3) {
        match g.c.below(6) {
            0 | 1 => {
                let n = 1 + g.c.below(4);
                let block = blocks.block(Origin::Call(p), g.c, n);
                let _ = writeln!(patch, "*** Add File: {}", g.path(p));
                for line in block.lines() {
                    let _ = writeln!(patch, "+{line}");
                }
            }
            2 => {
                let _ = writeln!(patch, "*** Delete File: {}", g.path(p));
            }
            _ => {
                let _ = writeln!(patch, "*** Update File: {}", g.path(p));
                if g.c.chance(25) {
                    let _ = writeln!(patch, "*** Move to: {}", g.path(p));
                }
                patch.push_str("@@\n");
                if g.c.chance(30) {
                    let _ = writeln!(patch, " {}", word(g.c));
                }
                let _ = writeln!(patch, "-{}\n+{}", word(g.c), word(g.c));
            }
        }
    }
    patch.push_str("*** End Patch\n");
    patch
}

/// A unified diff of one or two files: a line replaced, or a new file of one block.
fn unified_patch(g: &mut Gen<'_>, blocks: &mut Blocks) -> String {
    let p = P::Native;
    let mut diff = String::new();
    for _ in 0..1 + g.c.below(2) {
        let path = g.path(p);
        let (a, b) = if g.c.chance(80) && !path.starts_with('/') {
            (format!("a/{path}"), format!("b/{path}"))
        } else {
            (path.clone(), path)
        };
        if g.c.chance(35) {
            let n = 1 + g.c.below(4);
            let block = blocks.block(Origin::Call(p), g.c, n);
            let lines: Vec<&str> = block.lines().collect();
            let _ = writeln!(
                diff,
                "--- /dev/null\n+++ {b}\n@@ -0,0 +1,{} @@",
                lines.len()
            );
            for l in lines {
                let _ = writeln!(diff, "+{l}");
            }
        } else {
            let at = 2 + g.c.below(4);
            let _ = writeln!(
                diff,
                "--- {a}\n+++ {b}\n@@ -{at} +{at} @@\n-{}\n+{}",
                word(g.c),
                word(g.c)
            );
        }
    }
    diff
}

// ---------------------------------------------------------------------------------------------
// The oracle

/// The text of everything an output shows.
fn output_text(out: &ToolOutput) -> String {
    let mut t = String::new();
    for c in &out.content {
        match c {
            Content::Text(s) => t.push_str(s),
            Content::Image { data, .. } | Content::Resource { data, .. } => {
                t.push_str(&String::from_utf8_lossy(data));
            }
        }
        t.push('\n');
    }
    if let Some(v) = &out.structured {
        t.push_str(&v.to_string());
    }
    t
}

fn excerpt(text: &str, needle: &str) -> String {
    let at = text.find(needle).unwrap_or(0);
    let start = text.floor_char_boundary(at.saturating_sub(200));
    let end = text.ceil_char_boundary((at + 200).min(text.len()));
    text[start..end].to_string()
}

/// Whether `bytes` is whole blocks and JSON documents, and the block ids in it.
fn segments(bytes: &[u8]) -> Result<Vec<u64>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    let mut ids = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(ids);
        }
        if rest.starts_with('{') {
            let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
            match stream.next() {
                Some(Ok(_)) => rest = &rest[stream.byte_offset()..],
                _ => return Err(format!("a cut JSON document at {:?}", head(rest))),
            }
            continue;
        }
        let Some(header) = rest.strip_prefix("#B") else {
            return Err(format!("neither a block nor JSON at {:?}", head(rest)));
        };
        let (id, body) = header
            .split_once('\n')
            .ok_or_else(|| format!("a block header without its lines at {:?}", head(rest)))?;
        let id: u64 = id
            .parse()
            .map_err(|_| format!("a bad block header at {:?}", head(rest)))?;
        let end = format!("#E{id}\n");
        let mut body = body;
        loop {
            if let Some(after) = body.strip_prefix(end.as_str()) {
                rest = after;
                break;
            }
            let Some((line, after)) = body.split_once('\n') else {
                return Err(format!("block {id} is cut: it ends in {:?}", head(body)));
            };
            let ok = line.starts_with('w')
                && line.len() == 4
                && line[1..].bytes().all(|b| b.is_ascii_digit())
                || line.starts_with(SECRET_DATA)
                || line.starts_with(GRANT);
            if !ok {
                return Err(format!("block {id} holds a foreign line {line:?}"));
            }
            body = after;
        }
        ids.push(id);
    }
}

/// Whether `needle` occurs in `hay`.
fn memchr_str(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

fn head(s: &str) -> String {
    s.chars().take(60).collect()
}

struct Checker<'a> {
    fx: &'a Fixture,
}

/// What the oracle's walk of the root and the granted folder found.
struct Inside {
    /// Paths below the root, and absolute paths in the granted folder (anything but folders of
    /// fsgate's own).
    known: Vec<String>,
    known_grant: Vec<String>,
    /// The content hashes of every regular file.
    contents: HashSet<u64>,
}

impl Checker<'_> {
    /// Whether the output leaks: a sentinel, or the version token (a hash of the content, as
    /// native's read_file, info and changes show it) of sealed content that the call's own
    /// arguments did not name (a refusal may repeat the `expected_version` it was given).
    fn leaks(&self, p: P, out: &ToolOutput, args: &Value) -> Result<(), String> {
        let text = output_text(out);
        let asked = args.to_string();
        let mut forbidden = vec![OUT_DATA, SECRET_DATA, HIDDEN];
        if p != P::Pico {
            forbidden.push(GRANT);
        }
        for s in forbidden {
            if text.contains(s) {
                return Err(format!(
                    "the output shows {s:?} (outside, secret or granted content or names): …{}…",
                    excerpt(&text, s)
                ));
            }
        }
        for (token, whose) in &self.fx.sealed_versions {
            if text.contains(token.as_str()) && !asked.contains(token.as_str()) {
                return Err(format!(
                    "the output shows {token}, the version of {whose} content: …{}…",
                    excerpt(&text, token)
                ));
            }
        }
        if p != P::Pico {
            for token in &self.fx.grant_versions {
                if text.contains(token.as_str()) && !asked.contains(token.as_str()) {
                    return Err(format!(
                        "the output shows {token}, the version of a granted file's content: …{}…",
                        excerpt(&text, token)
                    ));
                }
            }
        }
        Ok(())
    }

    /// A call that only reads (or a native dry run, or a native call that failed) left no
    /// content that was not there before it: the racer makes none.
    fn nothing_new(&self, now: &HashSet<u64>, named: &[String]) -> Result<(), String> {
        if now.is_subset(&self.fx.contents) {
            return Ok(());
        }
        Err(format!(
            "a call that only reads, a dry run or a failed native call left new content in the \
             tree (a file now holds what no file held before it; the tree now: {})",
            head_n(&named.join(" "), 300)
        ))
    }

    /// Native's undo left no content in the tree that no check of this run saw: it brings
    /// back what files held, never anything else.
    fn only_earlier(&self, now: &HashSet<u64>, named: &[String]) -> Result<(), String> {
        if now.is_subset(&self.fx.history) {
            return Ok(());
        }
        Err(format!(
            "native undo left content in the tree that no file of this run ever held (the tree \
             now: {})",
            head_n(&named.join(" "), 300)
        ))
    }

    fn outside(&self) -> Result<(), String> {
        let (now, _) = snapshot_outside(&self.fx.paths);
        let before = &self.fx.outside;
        let diffs: Vec<String> = before
            .keys()
            .chain(now.keys())
            .filter(|k| before.get(*k) != now.get(*k))
            .map(|k| format!("{}: {:?} -> {:?}", k.display(), before.get(k), now.get(k)))
            .collect();
        if diffs.is_empty() {
            Ok(())
        } else {
            Err(format!("the outside changed: {diffs:?}"))
        }
    }

    /// Every regular file of the root and the granted folder; the secrets.
    fn inside(&self) -> Result<Inside, String> {
        let mut seen_secrets = HashSet::new();
        // The secrets seen under a non-accessible name, and where the others were seen.
        let mut named_secrets = HashSet::new();
        let mut secret_aliases: Vec<String> = Vec::new();
        let mut contents = HashSet::new();
        let mut known = (Vec::new(), Vec::new());
        let paths = &self.fx.paths;
        for (region, is_grant) in [(&paths.root, false), (&paths.grant, true)] {
            let mut stack = vec![region.clone()];
            while let Some(d) = stack.pop() {
                let Ok(list) = std::fs::read_dir(&d) else {
                    continue;
                };
                for e in list {
                    let Ok(e) = e else { continue };
                    let p = e.path();
                    let name = e.file_name().to_string_lossy().into_owned();
                    if name != ".fsgate" && name != ".picoclaw" {
                        if is_grant {
                            known.1.push(Paths::s(&p));
                        } else if let Ok(rel) = p.strip_prefix(region) {
                            known.0.push(Paths::s(rel));
                        }
                    }
                    let Ok(m) = std::fs::symlink_metadata(&p) else {
                        continue;
                    };
                    if m.is_dir() {
                        if name != ".fsgate" && name != ".picoclaw" {
                            stack.push(p);
                        }
                        continue;
                    }
                    if !m.is_file() {
                        continue;
                    }
                    let key = (m.dev(), m.ino());
                    if self.fx.outside_inodes.contains(&key) {
                        continue;
                    }
                    let mut bytes = Vec::new();
                    std::fs::OpenOptions::new()
                        .read(true)
                        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32)
                        .open(&p)
                        .and_then(|mut f| f.read_to_end(&mut bytes))
                        .map_err(|e| format!("{}: unreadable to the oracle: {e}", p.display()))?;
                    contents.insert(fnv(&bytes));
                    if let Some(secret) = self.fx.secrets.get(&key) {
                        if *secret != bytes {
                            return Err(format!("secret {} was changed", p.display()));
                        }
                        seen_secrets.insert(key);
                        if is_secret_name(&name) {
                            named_secrets.insert(key);
                        } else {
                            secret_aliases.push(Paths::s(&p));
                        }
                        continue;
                    }
                    if memchr_str(&bytes, SECRET_DATA) {
                        return Err(format!(
                            "{}: a secret's content was copied into a file of its own",
                            p.display()
                        ));
                    }
                    let ids = segments(&bytes).map_err(|why| {
                        format!("{}: not what any write asked for: {why}", p.display())
                    })?;
                    for id in ids {
                        match self.fx.blocks.origin.get(&id) {
                            None => {
                                return Err(format!(
                                    "{}: block {id} was never issued",
                                    p.display()
                                ));
                            }
                            Some(Origin::GrantFixture | Origin::Call(P::Pico)) => {}
                            Some(o) if is_grant => {
                                return Err(format!(
                                    "{}: block {id} written by {o:?} in the granted folder",
                                    p.display()
                                ));
                            }
                            Some(_) => {}
                        }
                    }
                }
            }
        }
        for key in self.fx.secrets.keys() {
            if !seen_secrets.contains(key) {
                return Err(format!("a secret file (inode {}) is gone", key.1));
            }
            // The racer never removes a name matching the non-accessible globs (it renames,
            // exchanges and stashes other names only), so a secret left only with the innocent
            // names of the racer's hard links lost its own name to a call.
            if !named_secrets.contains(key) {
                return Err(format!(
                    "a secret file (inode {}) lost its non-accessible name: its content is now \
                     only under {secret_aliases:?}, where every tool may show it",
                    key.1
                ));
            }
        }
        Ok(Inside {
            known: known.0,
            known_grant: known.1,
            contents,
        })
    }
}

/// Makes everything under `dir` removable by a user without root's rights.
fn writable(dir: &Path) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        let Ok(m) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if m.is_dir() {
            let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o700));
            if let Ok(list) = std::fs::read_dir(&p) {
                stack.extend(list.flatten().map(|e| e.path()));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A run

/// Watches the call in progress: a call that does not return within [`CALL_LIMIT`] is a
/// finding, and since a hung thread cannot be unwound, it aborts the process.
struct Watchdog {
    current: Arc<Mutex<Option<(Instant, String)>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    fn start(seed: u64) -> Watchdog {
        let current: Arc<Mutex<Option<(Instant, String)>>> = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s) = (current.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(100));
                let cur = c.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if let Some((since, call)) = &*cur
                    && since.elapsed() > CALL_LIMIT
                {
                    eprintln!(
                        "jail fuzzer finding (seed {seed}): a call did not return within {} s: {call}",
                        CALL_LIMIT.as_secs()
                    );
                    std::process::abort();
                }
            }
        });
        Watchdog {
            current,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// How one run goes.
pub struct RunConfig {
    /// The seed (the racer's, and the choices' when they come from [`Rng`]).
    pub seed: u64,
    /// At most this many calls.
    pub calls: usize,
    /// Stop making calls after this moment.
    pub deadline: Option<Instant>,
    /// Whether the racer runs.
    pub racer: bool,
}

/// Builds a fixture from `c`'s choices, makes up to `config.calls` calls with the racer running,
/// and checks the oracle after each.
pub fn run(config: &RunConfig, c: &mut dyn Choices) -> Result<Stats, Box<Finding>> {
    let mut fx = Fixture::build(c);
    let first = Checker { fx: &fx }
        .inside()
        .unwrap_or_else(|why| panic!("the fixture fails its own oracle: {why}"));
    fx.known = first.known;
    fx.known_grant = first.known_grant;
    fx.history.clone_from(&first.contents);
    fx.contents = first.contents;
    let mut stats = Stats {
        runs: 1,
        ..Stats::default()
    };
    let ctl = Arc::new(RacerCtl {
        stop: AtomicBool::new(false),
        pause: AtomicBool::new(true),
        lock: Mutex::new(VecDeque::new()),
        ops: AtomicU64::new(0),
    });
    let open_dir = |p: &Path| {
        rustix::fs::open(
            p,
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .unwrap()
    };
    let racer_thread = config.racer.then(|| {
        let racer = Racer {
            rng: Rng(config.seed ^ 0x5eed),
            base: open_dir(&fx.paths.base),
            regions: vec![
                (open_dir(&fx.paths.root), fx.paths.root.clone()),
                (open_dir(&fx.paths.grant), fx.paths.grant.clone()),
            ],
            base_path: fx.paths.base.clone(),
            paths: Paths {
                base: fx.paths.base.clone(),
                root: fx.paths.root.clone(),
                grant: fx.paths.grant.clone(),
                out: fx.paths.out.clone(),
                evil: fx.paths.evil.clone(),
            },
            outside_inodes: fx.outside_inodes.clone(),
            stash: Vec::new(),
            counter: 0,
        };
        spawn_racer(ctl.clone(), racer)
    });
    let watchdog = Watchdog::start(config.seed);
    let mut log: VecDeque<String> = VecDeque::new();
    let mut result = Ok(());
    for _ in 0..config.calls {
        if config.deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let p = *c.pick(&PROFILES);
        let more = fx.more.take();
        let (tool, args) = match more {
            // Native's last answer was cut: sometimes go on where it says.
            Some(next) if p == P::Native && c.chance(40) => next,
            _ => {
                let mut g = Gen {
                    c: &mut *c,
                    paths: &fx.paths,
                    known: &fx.known,
                    known_grant: &fx.known_grant,
                    versions: &fx.versions,
                    sealed: &fx.sealed_versions,
                };
                gen_call(&mut g, &mut fx.blocks, p)
            }
        };
        // qwen edits only what this session has read: read it first (checked as a call too).
        // Native edits and writes sometimes read first and pass the version read.
        let mut steps = Vec::new();
        let mut versioned = false;
        if p == P::Qwen && c.chance(80) {
            let path = args.get("file_path").or_else(|| args.get("notebook_path"));
            if let Some(path) = path {
                steps.push(("read_file", json!({"path": path})));
            }
        }
        if p == P::Native
            && matches!(tool, "edit" | "write_file")
            && c.chance(40)
            && let Some(path) = args.get("path")
        {
            steps.push(("read_file", json!({"path": path})));
            versioned = true;
        }
        steps.push((tool, args));
        let mut read_version: Option<String> = None;
        for (tool, mut args) in steps {
            if versioned
                && tool != "read_file"
                && let Some(v) = read_version.take()
            {
                args["expected_version"] = json!(v);
            }
            let call = format!("{p:?} {tool} {args}");
            let ws = &fx.workspaces.iter().find(|(q, _)| *q == p).unwrap().1;
            *watchdog.current.lock().unwrap() = Some((Instant::now(), call.clone()));
            ctl.pause.store(false, Ordering::SeqCst);
            let out = catch_unwind(AssertUnwindSafe(|| ws.call(tool, args.clone())));
            let mut racer_log = ctl.hold();
            *watchdog.current.lock().unwrap() = None;
            stats.calls += 1;
            let mut new_known = None;
            let mut native_seen = None;
            let verdict = match out {
                Err(panic) => Err(format!(
                    "the call panicked: {}",
                    panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_string()))
                        .unwrap_or_default()
                )),
                Ok(Err(unknown)) => Err(format!("the profile has no tool {tool}: {unknown:?}")),
                Ok(Ok(out)) => {
                    stats.errors += u64::from(out.is_error);
                    if std::env::var_os("FSGATE_JAILFUZZ_TRACE").is_some() {
                        eprintln!(
                            "TRACE {p:?} {tool} err={} {}",
                            out.is_error,
                            head_n(&out.text_content().replace('\n', " | "), 160)
                        );
                    }
                    let checker = Checker { fx: &fx };
                    // Native's undo restores earlier content, and stops at a step it may not
                    // undo after undoing the newer ones (a failure that changed files): it is
                    // checked against every content the run has seen instead.
                    let undo = p == P::Native && tool == "undo";
                    // A write's new content has a name of its own for a moment, between its
                    // link and its rename over the file: a racer that renames or exchanges that
                    // name then holds the content under a name of its choosing, and the write
                    // fails or lands what was swapped in (no process can stop another from
                    // renaming a name in a folder both may write). Such a call's new content
                    // is the racer's doing.
                    let moved_temp = racer_log.iter().any(|op| op.contains(".fsgate-tmp"));
                    let only_reads = reads_only(p, tool, &args)
                        || (p == P::Native && out.is_error && !undo && !moved_temp);
                    if p == P::Native {
                        let text = out.text_content();
                        let tokens = version_tokens(&text);
                        read_version = tokens.first().cloned();
                        native_seen = Some((tokens, continuation(&text)));
                    }
                    // A whole native read's token is the version of the lines it shows (the
                    // content is held across the read and kept only while the file is
                    // unchanged): a mismatch is a finding.
                    let version_ok = if p == P::Native && tool == "read_file" && !out.is_error {
                        whole_read_version(&out.text_content(), &args).map_err(|what| {
                            format!(
                                "native read_file's version is not the one of the lines it \
                                 shows: {what}"
                            )
                        })
                    } else {
                        Ok(())
                    };
                    version_ok
                        .and_then(|()| checker.leaks(p, &out, &args))
                        .and_then(|()| checker.outside())
                        .and_then(|()| checker.inside())
                        .and_then(|inside| {
                            if only_reads {
                                checker.nothing_new(&inside.contents, &inside.known)?;
                            }
                            if undo {
                                checker.only_earlier(&inside.contents, &inside.known)?;
                            }
                            new_known = Some(inside);
                            Ok(())
                        })
                }
            };
            if let Some(inside) = new_known {
                fx.known = inside.known;
                fx.known_grant = inside.known_grant;
                fx.history.extend(inside.contents.iter().copied());
                fx.contents = inside.contents;
            }
            if let Some((tokens, more)) = native_seen {
                for t in tokens {
                    if !fx.versions.contains(&t) {
                        fx.versions.push(t);
                    }
                }
                if fx.versions.len() > 32 {
                    let extra = fx.versions.len() - 32;
                    fx.versions.drain(..extra);
                }
                fx.more = more;
            }
            let racer_recent: Vec<String> = racer_log.drain(..).collect();
            drop(racer_log);
            let mut recent: Vec<String> = log.iter().cloned().collect();
            recent.extend(racer_recent.iter().cloned());
            if let Err(what) = verdict {
                result = Err(Box::new(Finding {
                    seed: config.seed,
                    what,
                    call,
                    log: recent,
                    tree: listing(&fx.paths),
                }));
                break;
            }
            log.extend(racer_recent.into_iter().rev().take(4).rev());
            log.push_back(format!("call: {}", head_n(&call, 300)));
            while log.len() > 24 {
                log.pop_front();
            }
        }
        if result.is_err() {
            break;
        }
    }
    ctl.stop.store(true, Ordering::SeqCst);
    ctl.pause.store(false, Ordering::SeqCst);
    if let Some(t) = racer_thread {
        let _ = t.join();
    }
    drop(watchdog);
    stats.racer_ops = ctl.ops.load(Ordering::Relaxed);
    writable(&fx.paths.base);
    drop(fx);
    result.map(|()| stats)
}

/// The version tokens in `text` (`v` and 12 hex digits, a word of its own), in order.
fn version_tokens(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for i in 0..bytes.len() {
        if bytes[i] == b'v'
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
            && bytes.len() >= i + 13
            && bytes.get(i + 13).is_none_or(|b| !b.is_ascii_alphanumeric())
            && version::is_token(&text[i..i + 13])
        {
            out.push(text[i..i + 13].to_string());
        }
    }
    out
}

/// The continuation a cut native answer ends with: `more: tool {…}`.
fn continuation(text: &str) -> Option<(&'static str, Value)> {
    let line = text.lines().find_map(|l| l.strip_prefix("more: "))?;
    let (tool, args) = line.split_once(' ')?;
    let tool = NATIVE_TOOLS.iter().find(|t| **t == tool)?;
    Some((tool, serde_json::from_str(args).ok()?))
}

/// Native's read_file of a whole file (no window asked for, nothing cut) shows a version token
/// beside the lines: it must be the version of the lines it shows, since an edit passing it
/// back is applied to the content it names. A file exchanged while native read it once paired
/// one content's lines with another's token (fixed: the read holds its content across the
/// window); [`run`] fails on such an answer.
fn whole_read_version(text: &str, args: &Value) -> Result<(), String> {
    if args.get("offset").is_some()
        || args.get("limit").is_some()
        || args.get("line_numbers").is_some()
        || args.get("outline").is_some()
    {
        return Ok(());
    }
    let mut lines = text.split_inclusive('\n');
    let Some(header) = lines.next() else {
        return Ok(());
    };
    // `{shown} v… lines 1-N of N`, nothing else on the line (no decoding note).
    let words: Vec<&str> = header.trim_end().rsplitn(6, ' ').collect();
    let [of_n, of, range, lines_word, token, _shown] = words[..] else {
        return Ok(());
    };
    if lines_word != "lines" || of != "of" || !version::is_token(token) {
        return Ok(());
    }
    let Some((first, last)) = range.split_once('-') else {
        return Ok(());
    };
    if first != "1" || last != of_n {
        return Ok(());
    }
    let mut shown = String::new();
    for line in lines {
        if line.starts_with("more: ") {
            return Ok(());
        }
        let Some((_, rest)) = line.split_once('\t') else {
            return Ok(());
        };
        shown.push_str(rest);
    }
    // The answer ends every line with a newline; the file's last may have had none.
    let without = shown.strip_suffix('\n').unwrap_or(&shown);
    if version::of(shown.as_bytes()) == token || version::of(without.as_bytes()) == token {
        return Ok(());
    }
    Err(format!(
        "native read_file showed {token} beside lines whose version is {} ({} bytes shown): the \
         token names other content than the answer shows",
        version::of(shown.as_bytes()),
        shown.len()
    ))
}

/// Every entry of the root and the granted folder (not inside fsgate's own folders): its path,
/// kind, inode and link count, and a link's target; at most 400 lines.
fn listing(paths: &Paths) -> String {
    let mut lines = Vec::new();
    for region in [&paths.root, &paths.grant] {
        let mut stack = vec![region.clone()];
        while let Some(d) = stack.pop() {
            let Ok(list) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in list.flatten() {
                let p = e.path();
                let Ok(m) = std::fs::symlink_metadata(&p) else {
                    continue;
                };
                let name = e.file_name().to_string_lossy().into_owned();
                let shown = p
                    .strip_prefix(&paths.base)
                    .unwrap_or(&p)
                    .display()
                    .to_string();
                let kind = if m.file_type().is_symlink() {
                    let to = std::fs::read_link(&p).unwrap_or_default();
                    format!("link -> {}", to.display())
                } else if m.is_dir() {
                    if name != ".fsgate" && name != ".picoclaw" {
                        stack.push(p.clone());
                    }
                    "dir".to_string()
                } else if m.is_file() {
                    format!("file {} bytes", m.len())
                } else {
                    "special".to_string()
                };
                lines.push(format!(
                    "  {shown}: {kind} (inode {}, {} links, mode {:o})",
                    m.ino(),
                    m.nlink(),
                    m.mode() & 0o7777
                ));
            }
        }
    }
    lines.sort();
    lines.truncate(400);
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

fn head_n(s: &str, n: usize) -> String {
    if s.len() <= n {
        s.to_string()
    } else {
        format!("{}…", &s[..s.floor_char_boundary(n)])
    }
}
