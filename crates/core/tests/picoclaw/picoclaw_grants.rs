#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! picoclaw's grants (`allow_read_paths`, `allow_write_paths`, `allow_read_outside_workspace`)
//! are enforced on what is opened: a granted folder, or a file in it, swapped for a link to an
//! outside place while read_file, list_dir, search_files and the writing tools run never lets a
//! byte from outside through; a hard link in a granted folder is not opened; links in a granted
//! folder are followed only to granted places. Protected credential names are refused and
//! hidden in any ASCII case, in the workspace and in granted folders, by every tool.

use crate::picoclaw_support;

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fsgate_core::PicoclawConfig;
use fsgate_core::{ToolOutput, Workspace};
use picoclaw_support::open;
use serde_json::{Value, json};

/// In every outside file; never in an answer.
const SECRET: &str = "TOP SECRET";
/// In the names of files that exist only outside; never in an answer.
const NAME_MARKER: &str = "MARKER";

/// A workspace `base/ws` with the granted places beside it, under one canonical temporary
/// folder.
struct Fx {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    ws: Workspace,
}

impl Fx {
    /// `config` is given the base folder, to write grants over it.
    fn new(config: impl FnOnce(&mut PicoclawConfig, &str)) -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("ws")).unwrap();
        let mut c = PicoclawConfig::default();
        config(&mut c, &regex::escape(&base.to_string_lossy()));
        let ws = open(&base.join("ws"), c);
        Fx {
            _tmp: tmp,
            base,
            ws,
        }
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }

    fn s(&self, rel: &str) -> String {
        self.p(rel).to_string_lossy().into_owned()
    }

    fn write(&self, rel: &str, content: &str) {
        let p = self.p(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.ws.call(tool, args).unwrap()
    }

    fn ok(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert!(
            !out.is_error,
            "{tool} {args} failed: {}",
            out.text_content()
        );
        out.text_content()
    }

    fn err(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert!(
            out.is_error,
            "{tool} {args} succeeded: {}",
            out.text_content()
        );
        out.text_content()
    }

    /// Every file under `rel` and its content.
    fn snap(&self, rel: &str) -> BTreeMap<PathBuf, String> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.p(rel)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let meta = std::fs::symlink_metadata(&path).unwrap();
                if meta.is_dir() {
                    stack.push(path);
                } else if meta.is_file() {
                    out.insert(path.clone(), std::fs::read_to_string(&path).unwrap());
                }
            }
        }
        out
    }
}

/// Puts an outside folder `out` in place: files of the same names as the granted ones, and one
/// whose name exists only outside, all holding [`SECRET`].
fn plant_outside(fx: &Fx, out: &str) {
    fx.write(&format!("{out}/f.txt"), "TOP SECRET f\n");
    fx.write(&format!("{out}/sub/s.txt"), "TOP SECRET s\n");
    fx.write(&format!("{out}/MARKER-outside-only.txt"), "TOP SECRET n\n");
}

/// Counts of a race.
#[derive(Default)]
struct Tally {
    calls: AtomicUsize,
    ok: AtomicUsize,
    refused: AtomicUsize,
    leaks: AtomicUsize,
    swaps: AtomicUsize,
}

impl Tally {
    fn record(&self, out: &ToolOutput, what: &str) {
        let text = out.text_content();
        if text.contains(SECRET) || text.contains(NAME_MARKER) {
            self.leaks.fetch_add(1, Ordering::Relaxed);
            eprintln!("LEAK from {what}: {text}");
        }
        if out.is_error {
            self.refused.fetch_add(1, Ordering::Relaxed);
        } else {
            self.ok.fetch_add(1, Ordering::Relaxed);
        }
        self.calls.fetch_add(1, Ordering::Relaxed);
    }

    /// No leak, and enough of a race to mean something: both outcomes seen.
    fn check(&self, name: &str) {
        let (calls, ok, refused, swaps) = (
            self.calls.load(Ordering::Relaxed),
            self.ok.load(Ordering::Relaxed),
            self.refused.load(Ordering::Relaxed),
            self.swaps.load(Ordering::Relaxed),
        );
        eprintln!("{name}: {calls} calls ({ok} ok, {refused} refused), {swaps} swaps");
        assert_eq!(
            self.leaks.load(Ordering::Relaxed),
            0,
            "an answer carried outside content"
        );
        assert!(calls >= 300, "too few calls to mean anything");
        assert!(swaps >= 100, "the swapper barely ran");
        assert!(ok > 0 && refused > 0, "the race never went both ways");
    }
}

/// Exchanges `a` and `b` atomically (`renameat2(RENAME_EXCHANGE)`) until `stop`, while `work`
/// runs `calls(i)` on `threads` threads for at most `secs` seconds or `rounds` rounds each.
fn race(
    fx: &Fx,
    (a, b): (&Path, &Path),
    threads: usize,
    rounds: usize,
    calls: impl Fn(usize, usize) -> (&'static str, Value) + Sync,
) -> Tally {
    let tally = Tally::default();
    let stop = AtomicBool::new(false);
    let deadline = Instant::now() + Duration::from_secs(5);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    a,
                    rustix::fs::CWD,
                    b,
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
                tally.swaps.fetch_add(1, Ordering::Relaxed);
            }
        });
        let workers: Vec<_> = (0..threads)
            .map(|w| {
                let (tally, calls) = (&tally, &calls);
                scope.spawn(move || {
                    let mut i = 0;
                    while Instant::now() < deadline && i < rounds {
                        let (tool, args) = calls(w, i);
                        let out = fx.call(tool, args.clone());
                        tally.record(&out, &format!("{tool} {args}"));
                        i += 1;
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        stop.store(true, Ordering::Relaxed);
    });
    // Leave the places as they were set up.
    if std::fs::symlink_metadata(a)
        .unwrap()
        .file_type()
        .is_symlink()
    {
        rustix::fs::renameat_with(
            rustix::fs::CWD,
            a,
            rustix::fs::CWD,
            b,
            rustix::fs::RenameFlags::EXCHANGE,
        )
        .unwrap();
    }
    tally
}

/// The read-only calls of the races, by round.
fn read_calls(fx: &Fx, i: usize) -> (&'static str, Value) {
    match i % 8 {
        0 => ("read_file", json!({"path": fx.s("g/f.txt")})),
        1 => ("read_file", json!({"path": fx.s("g/sub/s.txt")})),
        2 => ("list_dir", json!({"path": fx.s("g")})),
        3 => ("list_dir", json!({"path": fx.s("g/sub")})),
        4 => ("search_files", json!({"pattern": ".", "path": fx.s("g")})),
        5 => (
            "search_files",
            json!({"pattern": "", "target": "files", "path": fx.s("g")}),
        ),
        6 => (
            "search_files",
            json!({"pattern": ".", "path": fx.s("g/f.txt")}),
        ),
        _ => (
            "search_files",
            json!({"pattern": "TOP", "path": fx.s("g"), "output_mode": "count"}),
        ),
    }
}

/// Setup: `g/` (f.txt, sub/s.txt) granted to the read-only tools, `out/` outside with files of
/// the same names and one of its own, `g_swap -> out`. One thread exchanges `g` and `g_swap`
/// as fast as it can, so `g` is now the granted folder, now a link outside; three threads run
/// read_file, list_dir and search_files (content, names, one file, counts) through it.
/// Expected: no answer carries outside content or an outside-only name.
#[test]
fn a_granted_folder_swapped_for_a_link_outside_never_leaks_through_read_list_or_search() {
    let fx = Fx::new(|c, base| c.allow_read_paths = vec![format!("^{base}/g(?:/|$)")]);
    fx.write("g/f.txt", "inside f\n");
    fx.write("g/sub/s.txt", "inside s\n");
    plant_outside(&fx, "out");
    symlink(fx.p("out"), fx.p("g_swap")).unwrap();
    // Unswapped, everything is readable; the link itself is not granted.
    assert!(
        fx.ok("read_file", json!({"path": fx.s("g/f.txt")}))
            .contains("inside f")
    );
    fx.err("read_file", json!({"path": fx.s("g_swap/f.txt")}));
    let tally = race(&fx, (&fx.p("g"), &fx.p("g_swap")), 3, 2000, |_, i| {
        read_calls(&fx, i)
    });
    tally.check("granted folder race");
}

/// Setup: `g/f.txt` granted (by a regex for that file alone, so its folder is not granted as a
/// whole) and `g/f_swap -> ../out/f.txt`, a link to an outside file; `g/sub/s.txt` beside it.
/// One thread exchanges `g/f.txt` and `g/f_swap`; three threads read, search (the file, and its
/// folder under a grant of the folder) through it. Expected: no outside byte in any answer.
#[test]
fn a_granted_file_swapped_for_a_link_outside_never_leaks() {
    let fx = Fx::new(|c, base| {
        c.allow_read_paths = vec![
            format!("^{base}/g/f\\.txt$"),
            format!("^{base}/g/sub(?:/|$)"),
        ]
    });
    fx.write("g/f.txt", "inside f\n");
    fx.write("g/sub/s.txt", "inside s\n");
    fx.write("g/sub/t.txt", "inside t\n");
    plant_outside(&fx, "out");
    symlink("../out/f.txt", fx.p("g/f_swap")).unwrap();
    symlink("../../out/sub/s.txt", fx.p("g/sub/s_swap")).unwrap();
    let tally = race(
        &fx,
        (&fx.p("g/f.txt"), &fx.p("g/f_swap")),
        3,
        2000,
        |_, i| match i % 3 {
            0 => ("read_file", json!({"path": fx.s("g/f.txt")})),
            1 => (
                "search_files",
                json!({"pattern": ".", "path": fx.s("g/f.txt")}),
            ),
            _ => ("read_file", json!({"path": fx.s("g/f.txt"), "offset": 2})),
        },
    );
    tally.check("granted file race");
    let tally = race(
        &fx,
        (&fx.p("g/sub/s.txt"), &fx.p("g/sub/s_swap")),
        3,
        2000,
        |_, i| match i % 4 {
            0 => ("read_file", json!({"path": fx.s("g/sub/s.txt")})),
            1 => (
                "search_files",
                json!({"pattern": ".", "path": fx.s("g/sub")}),
            ),
            2 => (
                "search_files",
                json!({"pattern": "", "target": "files", "path": fx.s("g/sub")}),
            ),
            // Refused while swapped in, read otherwise: the race goes both ways.
            _ => (
                "read_file",
                json!({"path": fx.s("g/sub/s.txt"), "offset": 0}),
            ),
        },
    );
    tally.check("file in a granted folder race");
}

/// Setup: `w/` (f.txt) granted to the writing tools and `w_swap -> wout`, an outside folder with
/// files of the same names. One thread exchanges `w` and `w_swap`; three threads run
/// write_file (new files and overwrites), append_file and edit_file through `w/`. Expected:
/// `wout` is byte for byte as before, nothing new appeared in it, and no answer carries its
/// content.
#[test]
fn writes_under_a_granted_folder_swapped_for_a_link_outside_never_escape() {
    let fx = Fx::new(|c, base| {
        c.allow_write_paths = vec![format!("^{base}/w(?:/|$)")];
        c.allow_read_paths = vec![format!("^{base}/w(?:/|$)")];
    });
    fx.write("w/f.txt", "inside f\n");
    fx.write("w/e.txt", "inside e\n");
    plant_outside(&fx, "wout");
    fx.write("wout/e.txt", "TOP SECRET e\n");
    symlink(fx.p("wout"), fx.p("w_swap")).unwrap();
    let before = fx.snap("wout");
    let tally = race(&fx, (&fx.p("w"), &fx.p("w_swap")), 3, 1500, |w, i| {
        match i % 5 {
            0 => (
                "write_file",
                json!({"path": fx.s(&format!("w/new-{w}-{i}.txt")), "content": "PWNED\n"}),
            ),
            1 => (
                "write_file",
                json!({"path": fx.s("w/f.txt"), "content": "PWNED f\n", "overwrite": true}),
            ),
            2 => (
                "append_file",
                json!({"path": fx.s("w/f.txt"), "content": "PWNED\n"}),
            ),
            3 => (
                "edit_file",
                json!({"path": fx.s("w/e.txt"), "old_text": "e\n", "new_text": "e\n# PWNED\n"}),
            ),
            _ => (
                "write_file",
                json!({"path": fx.s("w/sub/deeper.txt"), "content": "PWNED\n", "overwrite": true}),
            ),
        }
    });
    tally.check("granted write folder race");
    assert_eq!(
        fx.snap("wout"),
        before,
        "a write escaped through the swapped link"
    );
}

/// Setup: `w/f.txt` granted to the writing tools and `w/f_swap -> ../wout/f.txt`. One thread
/// exchanges the file and the link; three threads overwrite, append to and edit `w/f.txt`.
/// Expected: the outside file is unchanged and no answer carries its content.
#[test]
fn writes_to_a_granted_file_swapped_for_a_link_outside_never_escape() {
    let fx = Fx::new(|c, base| {
        c.allow_write_paths = vec![format!("^{base}/w(?:/|$)")];
        c.allow_read_paths = vec![format!("^{base}/w(?:/|$)")];
    });
    fx.write("w/f.txt", "inside f\n");
    plant_outside(&fx, "wout");
    symlink("../wout/f.txt", fx.p("w/f_swap")).unwrap();
    let before = fx.snap("wout");
    let tally = race(
        &fx,
        (&fx.p("w/f.txt"), &fx.p("w/f_swap")),
        3,
        1500,
        |_, i| match i % 4 {
            0 => (
                "write_file",
                json!({"path": fx.s("w/f.txt"), "content": "PWNED f\n", "overwrite": true}),
            ),
            1 => (
                "append_file",
                json!({"path": fx.s("w/f.txt"), "content": "PWNED\n"}),
            ),
            2 => (
                "edit_file",
                json!({"path": fx.s("w/f.txt"), "old_text": "f\n", "new_text": "f\n"}),
            ),
            _ => ("read_file", json!({"path": fx.s("w/f.txt")})),
        },
    );
    tally.check("granted write file race");
    assert_eq!(
        fx.snap("wout"),
        before,
        "a write escaped through the swapped link"
    );
}

/// Setup: `g/alias.txt`, a hard link of `out/secret.txt`, in a folder granted to every tool.
/// Expected: read_file, edit_file, append_file and write_file refuse it naming the hard links, a
/// search of the folder or of the file shows nothing of it, and the outside file is unchanged.
#[test]
fn a_hard_link_in_a_granted_folder_to_an_outside_file_is_not_opened() {
    let fx = Fx::new(|c, base| {
        c.allow_read_paths = vec![format!("^{base}/g(?:/|$)")];
        c.allow_write_paths = vec![format!("^{base}/g(?:/|$)")];
    });
    fx.write("out/secret.txt", "TOP SECRET hard\n");
    fx.write("g/plain.txt", "plain\n");
    std::fs::create_dir_all(fx.p("g")).unwrap();
    std::fs::hard_link(fx.p("out/secret.txt"), fx.p("g/alias.txt")).unwrap();
    let alias = fx.s("g/alias.txt");
    let text = fx.err("read_file", json!({"path": alias}));
    assert!(text.contains("hard links"), "{text}");
    assert!(!text.contains(SECRET));
    let text = fx.err(
        "edit_file",
        json!({"path": alias, "old_text": "TOP", "new_text": "PWNED"}),
    );
    assert!(text.contains("hard links"), "{text}");
    let text = fx.err("append_file", json!({"path": alias, "content": "PWNED"}));
    assert!(text.contains("hard links"), "{text}");
    for args in [
        json!({"pattern": "SECRET", "path": fx.s("g")}),
        json!({"pattern": "SECRET", "path": alias}),
        json!({"pattern": ".", "path": fx.s("g"), "output_mode": "count"}),
    ] {
        let out = fx.call("search_files", args.clone());
        assert!(
            !out.text_content().contains(SECRET),
            "{args}: {}",
            out.text_content()
        );
    }
    assert_eq!(
        std::fs::read_to_string(fx.p("out/secret.txt")).unwrap(),
        "TOP SECRET hard\n"
    );
    // write_file compares the file with the new content first, so it refuses too.
    let text = fx.err(
        "write_file",
        json!({"path": alias, "content": "own\n", "overwrite": true}),
    );
    assert!(
        text.contains("hard links") && !text.contains(SECRET),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(fx.p("out/secret.txt")).unwrap(),
        "TOP SECRET hard\n"
    );
}

/// Setup: in the granted `g/`, `in.txt -> sub/s.txt` (stays inside), `out.txt -> ../out/f.txt`
/// and `outdir -> ../out` (lead outside). Expected: the inside link reads its target; the
/// outside ones are denied naming the link, for reads, listings, searches and writes; a search
/// of `g` does not follow them.
#[test]
fn links_in_a_granted_folder_are_followed_only_to_granted_places() {
    let fx = Fx::new(|c, base| {
        c.allow_read_paths = vec![format!("^{base}/g(?:/|$)")];
        c.allow_write_paths = vec![format!("^{base}/g(?:/|$)")];
    });
    fx.write("g/sub/s.txt", "inside s\n");
    plant_outside(&fx, "out");
    symlink("sub/s.txt", fx.p("g/in.txt")).unwrap();
    symlink("../out/f.txt", fx.p("g/out.txt")).unwrap();
    symlink("../out", fx.p("g/outdir")).unwrap();
    assert!(
        fx.ok("read_file", json!({"path": fx.s("g/in.txt")}))
            .contains("inside s")
    );
    for (tool, args) in [
        ("read_file", json!({"path": fx.s("g/out.txt")})),
        ("read_file", json!({"path": fx.s("g/outdir/f.txt")})),
        ("list_dir", json!({"path": fx.s("g/outdir")})),
        (
            "search_files",
            json!({"pattern": ".", "path": fx.s("g/outdir")}),
        ),
        (
            "write_file",
            json!({"path": fx.s("g/out.txt"), "content": "PWNED", "overwrite": true}),
        ),
        (
            "append_file",
            json!({"path": fx.s("g/outdir/new.txt"), "content": "PWNED"}),
        ),
    ] {
        let text = fx.err(tool, args.clone());
        assert!(
            text.starts_with("denied:") && text.contains("symbolic link"),
            "{tool} {args}: {text}"
        );
        assert!(!text.contains(SECRET));
    }
    let out = fx.ok("search_files", json!({"pattern": ".", "path": fx.s("g")}));
    assert!(out.contains("inside s") && !out.contains(SECRET), "{out}");
    assert!(!fx.p("out/new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(fx.p("out/f.txt")).unwrap(),
        "TOP SECRET f\n"
    );
}

/// Setup: with allow_read_outside_workspace, `g/notes.txt -> .ssh/id_rsa` beside a protected
/// key. Expected: the link is refused as protected; its target's folder is hidden.
#[test]
fn reading_outside_never_follows_a_link_into_a_protected_path() {
    let fx = Fx::new(|c, _| c.allow_read_outside_workspace = true);
    fx.write("g/.ssh/id_rsa", "TOP SECRET key\n");
    fx.write("g/plain.txt", "plain\n");
    symlink(".ssh/id_rsa", fx.p("g/notes.txt")).unwrap();
    let text = fx.err("read_file", json!({"path": fx.s("g/notes.txt")}));
    assert!(text.contains("protected"), "{text}");
    let out = fx.ok("search_files", json!({"pattern": ".", "path": fx.s("g")}));
    assert!(!out.contains(SECRET), "{out}");
    let out = fx.ok("list_dir", json!({"path": fx.s("g")}));
    assert!(!out.contains(".ssh"), "{out}");
}

/// The protected names planted in other cases, relative to a folder.
const CASE_VARIANTS: [&str; 7] = [
    ".NETRC",
    ".SSH/id_RSA",
    ".Docker/Config.json",
    "ID_ED25519",
    ".AWS/Credentials",
    ".Config/GH/hosts.yml",
    ".Git-Credentials",
];

/// Every picoclaw tool, on protected names spelled in other cases in `folder` (the workspace
/// as "", or a granted folder's absolute path): refused by read_file, write_file, edit_file
/// and append_file, hidden from list_dir and from searches of content and names.
fn protected_variants_are_refused_and_hidden(fx: &Fx, folder: &str, at: impl Fn(&str) -> String) {
    for rel in CASE_VARIANTS {
        let path = at(rel);
        for (tool, args) in [
            ("read_file", json!({"path": path})),
            (
                "write_file",
                json!({"path": path, "content": "PWNED", "overwrite": true}),
            ),
            (
                "edit_file",
                json!({"path": path, "old_text": "TOP", "new_text": "PWNED"}),
            ),
            ("append_file", json!({"path": path, "content": "PWNED"})),
            ("list_dir", json!({"path": path})),
            ("search_files", json!({"pattern": ".", "path": path})),
        ] {
            let out = fx.call(tool, args.clone());
            let text = out.text_content();
            assert!(
                out.is_error && text.contains("protected credential path"),
                "{tool} {args}: {text}"
            );
            assert!(!text.contains(SECRET), "{tool} {args}: {text}");
        }
    }
    let listing = fx.ok("list_dir", json!({"path": folder}));
    for hidden in [".NETRC", ".SSH", "ID_ED25519", ".AWS", ".Git-Credentials"] {
        assert!(
            !listing.lines().any(|l| l.ends_with(hidden)),
            "{hidden} listed: {listing}"
        );
    }
    assert!(listing.contains("FILE: ok.txt"), "{listing}");
    let docker = fx.ok("list_dir", json!({"path": at(".Docker")}));
    assert!(
        !docker.contains("Config.json") && docker.contains("other.json"),
        "{docker}"
    );
    let config = fx.ok("list_dir", json!({"path": at(".Config")}));
    assert!(!config.contains("GH"), "{config}");
    for args in [
        json!({"pattern": "SECRET", "path": folder}),
        json!({"pattern": "", "target": "files", "path": folder}),
        json!({"pattern": ".", "path": folder, "output_mode": "files_only"}),
    ] {
        let out = fx.ok("search_files", args.clone());
        assert!(!out.contains(SECRET), "{args}: {out}");
        for rel in CASE_VARIANTS {
            assert!(!out.contains(rel), "{rel} in {args}: {out}");
        }
    }
    // Nothing was written.
    for rel in CASE_VARIANTS {
        let p = Path::new(&at(rel)).to_path_buf();
        let p = if p.is_absolute() {
            p
        } else {
            fx.p("ws").join(p)
        };
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "TOP SECRET\n",
            "{rel}"
        );
    }
}

#[test]
fn protected_names_in_any_case_are_refused_and_hidden_by_every_tool_in_the_workspace() {
    let fx = Fx::new(|_, _| {});
    for rel in CASE_VARIANTS {
        fx.write(&format!("ws/{rel}"), "TOP SECRET\n");
    }
    fx.write("ws/ok.txt", "fine\n");
    fx.write("ws/.Docker/other.json", "{}\n");
    protected_variants_are_refused_and_hidden(&fx, ".", |rel| rel.to_string());
}

#[test]
fn protected_names_in_any_case_are_refused_and_hidden_by_every_tool_in_a_granted_folder() {
    let fx = Fx::new(|c, base| {
        c.allow_read_paths = vec![format!("^{base}/g(?:/|$)")];
        c.allow_write_paths = vec![format!("^{base}/g(?:/|$)")];
    });
    for rel in CASE_VARIANTS {
        fx.write(&format!("g/{rel}"), "TOP SECRET\n");
    }
    fx.write("g/ok.txt", "fine\n");
    fx.write("g/.Docker/other.json", "{}\n");
    let g = fx.s("g");
    protected_variants_are_refused_and_hidden(&fx, &g, |rel| fx.s(&format!("g/{rel}")));
}
