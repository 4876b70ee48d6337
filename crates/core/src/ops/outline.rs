//! A file's outline: the lines that open its definitions and sections (functions, types,
//! classes, modules, Markdown headings), with their line numbers, so a model can read a file too
//! large to read whole by windows that start where the code it wants starts.
//!
//! The outline is read from the text line by line (a file of any size, in one pass, without
//! holding it): each language's definition lines are recognised by their opening words at the
//! start of the line (after indentation, for the languages that nest definitions), not by a
//! parse, so a definition spread over several lines shows its first line. A language the
//! extension does not name falls back to lines that start at column 0 with a word, which in
//! most code are the top-level declarations.

use std::io::BufRead;
use std::path::Path;

/// One line of an outline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The 1-based line.
    pub line: u64,
    /// How deeply it is indented (leading whitespace, a tab counting 4).
    pub indent: usize,
    /// The line, trimmed, at most [`MAX_CHARS`] characters.
    pub text: String,
}

/// The longest outline line kept, in characters.
pub const MAX_CHARS: usize = 120;

/// The families of definition syntax the outline knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Rust,
    Python,
    Script,
    Go,
    CLike,
    Markdown,
    Other,
}

fn family(path: &Path) -> Family {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "rs" => Family::Rust,
        "py" | "pyi" => Family::Python,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => Family::Script,
        "go" => Family::Go,
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "java" | "kt" | "cs" | "swift"
        | "scala" | "php" => Family::CLike,
        "md" | "markdown" | "mdx" | "rst" => Family::Markdown,
        _ => Family::Other,
    }
}

/// `line` without the first word of `words` it starts with, if any (a word followed by a space).
fn starts_with_any(line: &str, words: &[&str]) -> bool {
    words.iter().any(|w| {
        line.strip_prefix(w)
            .is_some_and(|rest| rest.starts_with([' ', '(', '<', ':', '{']) || rest.is_empty())
    })
}

/// Strips leading modifiers (`pub`, `pub(crate)`, `export`, `async`, …) from `line`.
fn strip_modifiers<'a>(mut line: &'a str, modifiers: &[&str]) -> &'a str {
    loop {
        let before = line;
        for m in modifiers {
            if let Some(rest) = line.strip_prefix(m) {
                // `pub(crate)` and the like.
                let rest = if rest.starts_with('(') {
                    rest.find(')').map_or(rest, |i| &rest[i + 1..])
                } else {
                    rest
                };
                if rest.starts_with(' ') {
                    line = rest.trim_start();
                }
            }
        }
        if line == before {
            return line;
        }
    }
}

fn is_definition(family: Family, raw: &str, trimmed: &str) -> bool {
    let top = !raw.starts_with([' ', '\t']);
    match family {
        Family::Rust => {
            let rest = strip_modifiers(
                trimmed,
                &["pub", "async", "unsafe", "const", "extern \"C\"", "default"],
            );
            starts_with_any(
                rest,
                &[
                    "fn",
                    "struct",
                    "enum",
                    "trait",
                    "impl",
                    "mod",
                    "type",
                    "union",
                    "macro_rules!",
                ],
            ) || (top && starts_with_any(trimmed, &["const", "static", "pub const", "pub static"]))
        }
        Family::Python => starts_with_any(trimmed, &["def", "class", "async def"]),
        Family::Script => {
            let rest = strip_modifiers(
                trimmed,
                &[
                    "export",
                    "default",
                    "async",
                    "declare",
                    "abstract",
                    "public",
                    "private",
                    "protected",
                    "static",
                ],
            );
            starts_with_any(
                rest,
                &[
                    "function",
                    "function*",
                    "class",
                    "interface",
                    "type",
                    "enum",
                    "namespace",
                ],
            ) || (top
                && starts_with_any(rest, &["const", "let", "var"])
                && (rest.contains("=>") || rest.contains("function") || rest.contains("= (")))
        }
        Family::Go => top && starts_with_any(trimmed, &["func", "type", "var", "const"]),
        Family::CLike => {
            let looks_like_code = !trimmed.starts_with(['/', '*', '#', '}', '@'])
                && !starts_with_any(
                    trimmed,
                    &[
                        "return", "if", "else", "for", "while", "switch", "case", "do",
                    ],
                );
            let opens = trimmed.ends_with('{') || trimmed.ends_with(')');
            let indent = raw.len() - raw.trim_start().len();
            looks_like_code
                && indent <= 4
                && (starts_with_any(
                    strip_modifiers(
                        trimmed,
                        &[
                            "public",
                            "private",
                            "protected",
                            "static",
                            "final",
                            "abstract",
                            "export",
                            "inline",
                            "virtual",
                        ],
                    ),
                    &[
                        "class",
                        "struct",
                        "interface",
                        "enum",
                        "namespace",
                        "record",
                        "union",
                    ],
                ) || (opens && trimmed.contains('(') && !trimmed.ends_with(';')))
        }
        Family::Markdown => trimmed.starts_with('#') && raw.starts_with('#'),
        Family::Other => {
            top && trimmed
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        }
    }
}

/// The outline of the text `reader` yields, for a file at `path` (its extension names the
/// language), at most `max` entries; and whether there were more.
pub fn outline(path: &Path, reader: impl BufRead, max: usize) -> (Vec<Entry>, bool) {
    let family = family(path);
    let mut entries = Vec::new();
    let mut more = false;
    for (i, line) in reader.split(b'\n').enumerate() {
        let Ok(bytes) = line else { break };
        let raw = String::from_utf8_lossy(&bytes);
        let raw = raw.trim_end_matches('\r');
        let trimmed = raw.trim();
        if trimmed.is_empty() || !is_definition(family, raw, trimmed) {
            continue;
        }
        if entries.len() == max {
            more = true;
            break;
        }
        let indent = raw
            .chars()
            .take_while(|c| c.is_whitespace())
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum();
        let mut text: String = trimmed.chars().take(MAX_CHARS).collect();
        if trimmed.chars().count() > MAX_CHARS {
            text.push('…');
        }
        entries.push(Entry {
            line: i as u64 + 1,
            indent,
            text,
        });
    }
    (entries, more)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(path: &str, text: &str) -> Vec<(u64, String)> {
        outline(Path::new(path), text.as_bytes(), 100)
            .0
            .into_iter()
            .map(|e| (e.line, e.text))
            .collect()
    }

    #[test]
    fn definitions_are_found_per_language_with_their_lines() {
        let rust = "use x;\n\npub(crate) struct A {\n    b: u8,\n}\nimpl A {\n    pub async fn go(&self) {\n        let x = 1;\n    }\n}\n";
        assert_eq!(
            lines("a.rs", rust),
            [
                (3, "pub(crate) struct A {".to_string()),
                (6, "impl A {".to_string()),
                (7, "pub async fn go(&self) {".to_string())
            ]
        );
        let py =
            "import os\nclass K:\n    def m(self):\n        return 1\nasync def f():\n    pass\n";
        let got: Vec<u64> = lines("k.py", py).iter().map(|e| e.0).collect();
        assert_eq!(got, [2, 3, 5]);
        let ts = "import x from 'y';\nexport default class C {}\nexport const f = (a) => a;\nconst n = 3;\ninterface I {}\n";
        let got: Vec<u64> = lines("c.ts", ts).iter().map(|e| e.0).collect();
        assert_eq!(got, [2, 3, 5]);
        let md = "# Title\ntext\n## Part\n    # not a heading\n";
        let got: Vec<u64> = lines("r.md", md).iter().map(|e| e.0).collect();
        assert_eq!(got, [1, 3]);
        let (cut, more) = outline(Path::new("a.py"), "def a():\ndef b():\n".as_bytes(), 1);
        assert_eq!((cut.len(), more), (1, true));
    }
}
