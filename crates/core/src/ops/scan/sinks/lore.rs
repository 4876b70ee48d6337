//! Lore libraries: folders of Markdown files with front matter, searched by regex and ranked.
//!
//! A lore is one Markdown file (`.md`, `.markdown`, `.mdx`) whose optional YAML front matter
//! (between a first line `---` and the next `---` or `...`) gives `title`, `description` and
//! `labels` (a list, or one comma-separated string). Without a title the file's name stands in.
//!
//! [`search`] runs one regex over each lore's title, labels, description and content (the text
//! after the front matter) and ranks the lores that match anywhere: first by where they match
//! (a title hit above a label hit above a description hit above a content hit, compared field
//! by field in that order), then by the number of hits over all four, then by path.

use std::path::Path;
use std::sync::Arc;

use regex::Regex;
use yaml_rust2::{Yaml, YamlLoader};

use super::super::{Binary, CallContext, Decode, FileSearch, Flow, Lines, Read, Scanner, Sink};
use super::super::{TextRule, run};
use crate::access::Access;
use crate::access::walk::{LinkRule, Passed, WalkOptions, WalkRule, WalkedFile};
use crate::access::walkdir::Skips;
use crate::error::Result;
use crate::text::lines;

/// How deep a library's folders are walked.
const MAX_DEPTH: usize = 16;
/// The most lore files read from one library.
const MAX_FILES: usize = 10_000;
/// Lore files larger than this are skipped.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// The most snippets a result carries.
pub const MAX_SNIPPETS: usize = 5;
/// The most characters of one snippet line.
const MAX_SNIPPET_CHARS: usize = 200;

/// One lore file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lore {
    /// The path to read it by (relative to the working directory when under it).
    pub path: String,
    /// The title (the file name without extension when the front matter has none).
    pub title: String,
    /// The description; empty when none.
    pub description: String,
    /// The labels.
    pub labels: Vec<String>,
    /// The content after the front matter.
    pub body: String,
    /// The file's 1-based line number of the body's first line.
    pub body_line: usize,
}

/// Parses a lore file's text; `stem` is the title when the front matter gives none.
pub fn parse(path: &str, stem: &str, text: &str) -> Lore {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lore = Lore {
        path: path.to_string(),
        title: stem.to_string(),
        description: String::new(),
        labels: Vec::new(),
        body: text.to_string(),
        body_line: 1,
    };
    let Some((front, body, body_line)) = split_front_matter(text) else {
        return lore;
    };
    let Ok(docs) = YamlLoader::load_from_str(front) else {
        return lore;
    };
    let Some(Yaml::Hash(map)) = docs.first() else {
        return lore;
    };
    let get = |key: &str| map.get(&Yaml::String(key.to_string()));
    if let Some(title) = get("title").and_then(scalar)
        && !title.trim().is_empty()
    {
        lore.title = title.trim().to_string();
    }
    if let Some(description) = get("description").and_then(scalar) {
        lore.description = description.trim().to_string();
    }
    lore.labels = match get("labels") {
        Some(Yaml::Array(items)) => items.iter().filter_map(scalar).collect(),
        Some(other) => scalar(other)
            .map(|s| s.split(',').map(|l| l.trim().to_string()).collect())
            .unwrap_or_default(),
        None => Vec::new(),
    };
    lore.labels.retain(|l| !l.is_empty());
    lore.body = body.to_string();
    lore.body_line = body_line;
    lore
}

/// The front matter, the body and the body's first line number, when `text` opens with `---`.
fn split_front_matter(text: &str) -> Option<(&str, &str, usize)> {
    let mut offset = 0;
    let mut line_no = 0;
    let mut front_start = None;
    for line in text.split_inclusive('\n') {
        line_no += 1;
        let bare = line.trim_end();
        match front_start {
            None if bare == "---" => front_start = Some(offset + line.len()),
            None => return None,
            Some(start) if bare == "---" || bare == "..." => {
                let body_start = offset + line.len();
                return Some((&text[start..offset], &text[body_start..], line_no + 1));
            }
            Some(_) => {}
        }
        offset += line.len();
    }
    None
}

fn scalar(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(n) => Some(n.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Reads every lore file under the library folder `library` (a path as configured), through
/// the access layer: the one walker under the library rule (entries whose names start with `.`
/// and artifact folders, saved tool output, are not walked; links are followed beneath the
/// roots), each lore read whole by the scanner, as stored. Folders that cannot be listed, files
/// that cannot be read, and symbolic links that loop or cannot be followed (one leading outside
/// the roots) are reported in the warnings.
pub fn load(access: &Access, library: &Path) -> Result<(Vec<Lore>, Vec<String>)> {
    let raw = library.to_string_lossy();
    let root = access.resolve(&raw)?;
    let meta = access
        .metadata(&root)
        .map_err(|e| crate::error::ToolError::from_io(&e, "read the lore library", &raw))?;
    if !meta.is_dir {
        return Err(crate::error::ToolError::invalid(format!(
            "the lore library {raw} is a file, not a folder; the configuration's \
             lore.libraries lists folders of Markdown files"
        )));
    }
    let mut sink = Library {
        access,
        lores: Vec::new(),
        warnings: Vec::new(),
    };
    let select = |path: &Path| {
        path.file_name()
            .is_some_and(|n| markdown_stem(&n.to_string_lossy()).is_some())
    };
    let options = WalkOptions {
        links: LinkRule::Follow,
        // The root's children are one level down; the deepest folder entered is this deep.
        max_depth: Some(MAX_DEPTH - 1),
        select: Some(&select),
        ..WalkOptions::new(WalkRule::Library)
    };
    match access.walk(&root.path, options, &Arc::new(Skips::default())) {
        Ok(walk) => {
            let read = LoreRead {
                access,
                rule: TextRule {
                    binary: Binary::Never,
                    decode: Decode::AsStored,
                    max_bytes: Some(MAX_FILE_BYTES),
                    whole: true,
                    ..TextRule::default()
                },
            };
            run(
                walk,
                &read,
                &mut sink,
                &CallContext::default(),
                "lores read",
            );
        }
        Err(e) => sink.warnings.push(format!(
            "could not list {}: {e}",
            access.display(&root.path)
        )),
    }
    let Library {
        lores,
        mut warnings,
        ..
    } = sink;
    if lores.len() >= MAX_FILES {
        warnings.push(format!(
            "the lore library {raw} holds more than {MAX_FILES} files; only the first \
             {MAX_FILES} were searched"
        ));
    }
    Ok((lores, warnings))
}

/// Reads one lore file.
struct LoreRead<'a> {
    access: &'a Access,
    rule: TextRule,
}

/// What reading one walked file gave.
enum Loaded {
    /// Not a lore (a link to a file that is not Markdown).
    Nothing,
    /// A lore.
    Lore(Lore),
    /// A warning instead.
    Warning(String),
}

impl FileSearch for LoreRead<'_> {
    type Tools = ();
    type Found = Loaded;

    fn tools(&self) {}

    fn search(&self, _: &mut (), scanner: &mut Scanner, file: WalkedFile) -> Loaded {
        let name = file.name().to_string_lossy().into_owned();
        let Some(stem) = markdown_stem(&name) else {
            return Loaded::Nothing;
        };
        let path = self.access.display(&file.path());
        let too_large = |len: u64| {
            Loaded::Warning(format!(
                "{path} was skipped: {len} bytes is more than the {MAX_FILE_BYTES} bytes a lore \
                 may hold"
            ))
        };
        if let Ok(meta) = self.access.walked_meta(&file)
            && meta.len > MAX_FILE_BYTES
        {
            return too_large(meta.len);
        }
        let mut text = Whole(Vec::new());
        let read = match scanner.open(self.access, &file) {
            Ok((mut opened, len)) => scanner.read(&mut opened, len, &self.rule, &mut text),
            Err(e) => Read::Unreadable(e),
        };
        match read {
            Read::Text | Read::Binary => {
                Loaded::Lore(parse(&path, stem, &String::from_utf8_lossy(&text.0)))
            }
            Read::TooLarge(len) => too_large(len),
            Read::Unreadable(e) | Read::Failed(e) => {
                Loaded::Warning(format!("could not read {path}: {e}"))
            }
        }
    }
}

/// A file's whole text, as the scanner gives it.
struct Whole(Vec<u8>);

impl Lines for Whole {
    fn lines(&mut self, text: &[u8], _: u64) -> Flow {
        self.0.extend_from_slice(text);
        Flow::More
    }

    fn restart(&mut self) {
        self.0.clear();
    }
}

/// The lores of a library and its warnings, taken in the walk's order up to [`MAX_FILES`]
/// lores.
struct Library<'a> {
    access: &'a Access,
    lores: Vec<Lore>,
    warnings: Vec<String>,
}

impl Sink<Loaded> for Library<'_> {
    fn take(&mut self, loaded: Loaded) -> bool {
        match loaded {
            Loaded::Nothing => {}
            Loaded::Lore(lore) => self.lores.push(lore),
            Loaded::Warning(warning) => self.warnings.push(warning),
        }
        self.lores.len() < MAX_FILES
    }

    fn passed(&mut self, passed: Passed) -> bool {
        let shown = |path: &Path| self.access.display(path);
        let warning = match passed {
            Passed::Folder(path, e) => format!("could not list {}: {e}", shown(&path)),
            Passed::LinkLoop(path) => format!(
                "{} was skipped: it is a symbolic link that leads round in a loop",
                shown(&path)
            ),
            Passed::Refused(path, why) => format!("{} was skipped: {why}", shown(&path)),
            Passed::NonAccessible(path) => {
                format!("{} was skipped: it is not accessible", shown(&path))
            }
        };
        self.warnings.push(warning);
        true
    }
}

/// The name without its Markdown extension; `None` for other files.
fn markdown_stem(name: &str) -> Option<&str> {
    let (stem, ext) = name.rsplit_once('.')?;
    let ext = ext.to_ascii_lowercase();
    (matches!(ext.as_str(), "md" | "markdown" | "mdx") && !stem.is_empty()).then_some(stem)
}

/// One lore that matched, with its hits per field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found<'a> {
    /// The lore.
    pub lore: &'a Lore,
    /// Matches in the title.
    pub title_hits: usize,
    /// Matches in the labels.
    pub label_hits: usize,
    /// Matches in the description.
    pub description_hits: usize,
    /// Matches in the content.
    pub content_hits: usize,
    /// Matching lines of the content: the file's line number and the line (cut to 200
    /// characters), at most [`MAX_SNIPPETS`].
    pub snippets: Vec<(usize, String)>,
}

impl Found<'_> {
    /// All hits.
    pub fn hits(&self) -> usize {
        self.title_hits + self.label_hits + self.description_hits + self.content_hits
    }

    /// The fields that matched, best first.
    pub fn fields(&self) -> Vec<&'static str> {
        [
            ("title", self.title_hits),
            ("labels", self.label_hits),
            ("description", self.description_hits),
            ("content", self.content_hits),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(f, _)| f)
        .collect()
    }

    fn rank_key(&self) -> (bool, bool, bool, bool, usize) {
        (
            self.title_hits > 0,
            self.label_hits > 0,
            self.description_hits > 0,
            self.content_hits > 0,
            self.hits(),
        )
    }
}

/// The lores `re` matches, best first (see the module documentation).
pub fn search<'a>(lores: &'a [Lore], re: &Regex) -> Vec<Found<'a>> {
    let mut found: Vec<Found<'a>> = lores
        .iter()
        .filter_map(|lore| {
            let count = |text: &str| re.find_iter(text).count();
            let mut snippets = Vec::new();
            let mut content_hits = 0;
            for (i, line) in lore.body.lines().enumerate() {
                let n = count(line);
                if n > 0 {
                    content_hits += n;
                    if snippets.len() < MAX_SNIPPETS {
                        let text = line.trim();
                        let (kept, cut) = lines::cut_chars(text, MAX_SNIPPET_CHARS);
                        let text = if cut > 0 {
                            format!("{kept}…")
                        } else {
                            kept.to_string()
                        };
                        snippets.push((lore.body_line + i, text));
                    }
                }
            }
            let hit = Found {
                lore,
                title_hits: count(&lore.title),
                label_hits: lore.labels.iter().map(|l| count(l)).sum(),
                description_hits: count(&lore.description),
                content_hits,
                snippets,
            };
            (hit.hits() > 0).then_some(hit)
        })
        .collect();
    found.sort_by(|a, b| {
        b.rank_key()
            .cmp(&a.rank_key())
            .then_with(|| a.lore.path.cmp(&b.lore.path))
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_gives_title_description_labels_and_the_body_line() {
        let lore = parse(
            "l/a.md",
            "a",
            "---\ntitle: Deploys\ndescription: How we ship\nlabels: [ops, ci]\n---\n# Body\nline\n",
        );
        assert_eq!(lore.title, "Deploys");
        assert_eq!(lore.description, "How we ship");
        assert_eq!(lore.labels, vec!["ops", "ci"]);
        assert_eq!(lore.body, "# Body\nline\n");
        assert_eq!(lore.body_line, 6);
    }

    #[test]
    fn without_front_matter_the_stem_is_the_title() {
        let lore = parse("x.md", "x", "# Hello\n");
        assert_eq!(lore.title, "x");
        assert_eq!(lore.body, "# Hello\n");
        let lore = parse("y.md", "y", "---\ntitle: T\nlabels: a, b\n...\nbody\n");
        assert_eq!(lore.labels, vec!["a", "b"]);
        assert_eq!(lore.body, "body\n");
    }

    #[test]
    fn ranking_puts_title_above_labels_above_description_above_content() {
        let lores = vec![
            parse("c.md", "c", "---\ntitle: C\n---\nkafka kafka kafka\n"),
            parse(
                "d.md",
                "d",
                "---\ntitle: D\ndescription: about kafka\n---\n",
            ),
            parse("l.md", "l", "---\ntitle: L\nlabels: [kafka]\n---\n"),
            parse("t.md", "t", "---\ntitle: Kafka\n---\n"),
        ];
        let re = regex::RegexBuilder::new("kafka")
            .case_insensitive(true)
            .build()
            .unwrap();
        let order: Vec<&str> = search(&lores, &re)
            .iter()
            .map(|f| f.lore.path.as_str())
            .collect();
        assert_eq!(order, vec!["t.md", "l.md", "d.md", "c.md"]);
    }
}
