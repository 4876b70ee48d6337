//! An advisory, best-effort syntax check of written files: a quick look for the kind of damage
//! an edit does (an unclosed brace, a string left open), never a compiler.
//!
//! What is checked, by extension (case-insensitive):
//!
//! - `.json` with the standard JSON validator (`serde_json`), except known JSONC files, which
//!   allow comments and trailing commas and are left unchecked: `tsconfig*.json`,
//!   `jsconfig.json`, `devcontainer.json` (also `.devcontainer.json`) and any `.json` directly
//!   inside a `.vscode` directory.
//! - `.go`, `.c`, `.h`, `.cc`, `.cpp`, `.cxx`, `.hpp`, `.hh` with a delimiter/quote/comment
//!   scanner: `()`, `[]` and `{}` must nest and close; strings, character (rune) literals and
//!   block comments must end. `//` and `/* */` comments, escapes, Go raw strings (`` ` ``) and
//!   C++ raw strings (`R"delim(...)delim"`) are understood, and in C-family number literals a
//!   `'` between digits is a digit separator (`1'000'000`), not a character literal.
//!   Preprocessor lines are skipped; when a C-family file uses conditional compilation (`#if`,
//!   `#ifdef`, `#ifndef`, `#elif`, `#else`) a problem skips the check instead of reporting it,
//!   since each branch may open what the other closes.
//! - `.py`, `.pyi` and `.toml` with the same scanner, which there understands triple-quoted
//!   strings (`"""`, `'''`) and `#` comments (TOML's `'...'` literal strings have no escapes).
//!
//! Everything else (JavaScript, Rust, Java, YAML: languages whose syntax needs a real parser)
//! is left unchecked. The scanner runs in O(n) time with a fixed 256-entry stack and no
//! allocation while scanning; deeper nesting skips the check rather than claiming it passed.
//! JSON nested beyond the validator's recursion limit is skipped the same way.

use std::path::Path;

/// The deepest nesting the scanner follows.
pub const STACK_CAP: usize = 256;

/// The outcome of a check that ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// The check ran and found nothing wrong.
    Ok,
    /// The check found a problem (advisory: the write still happened).
    Error(String),
    /// The check bailed out (nesting beyond the cap, conditional compilation that does not
    /// balance): nothing is claimed.
    Skipped,
}

/// Checks `content` as the file at `path`; `None` when the file's kind is not checked at all
/// (an unknown extension, a known JSONC file).
pub fn check(path: &Path, content: &[u8]) -> Option<Syntax> {
    let lang = language(path)?;
    let content = content.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(content);
    Some(match lang {
        Lang::Json => json(content),
        other => Scanner::new(content, other).run(),
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lang {
    Json,
    C,
    Go,
    Python,
    Toml,
}

fn language(path: &Path) -> Option<Lang> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "json" if is_jsonc(path) => return None,
        "json" => Lang::Json,
        "go" => Lang::Go,
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" => Lang::C,
        "py" | "pyi" => Lang::Python,
        "toml" => Lang::Toml,
        _ => return None,
    })
}

/// Known JSON-with-comments files (also left out of the tree-sitter check,
/// [`crate::ops::syntax_check`]).
pub(crate) fn is_jsonc(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let in_vscode = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == ".vscode");
    (name.starts_with("tsconfig") && name.ends_with(".json"))
        || name == "jsconfig.json"
        || name == "devcontainer.json"
        || name == ".devcontainer.json"
        || in_vscode
}

fn json(content: &[u8]) -> Syntax {
    match serde_json::from_slice::<serde::de::IgnoredAny>(content) {
        Ok(_) => Syntax::Ok,
        Err(e) if e.to_string().contains("recursion limit exceeded") => Syntax::Skipped,
        Err(e) => Syntax::Error(format!("invalid JSON: {e}")),
    }
}

/// Why a scan stopped early.
enum Stop {
    Error(String),
    TooDeep,
}

struct Scanner<'a> {
    s: &'a [u8],
    lang: Lang,
    i: usize,
    line: u32,
    stack: [(u8, u32); STACK_CAP],
    depth: usize,
    /// The file uses conditional compilation (C family).
    conditional: bool,
}

impl<'a> Scanner<'a> {
    fn new(s: &'a [u8], lang: Lang) -> Self {
        Scanner {
            s,
            lang,
            i: 0,
            line: 1,
            stack: [(0, 0); STACK_CAP],
            depth: 0,
            conditional: false,
        }
    }

    fn run(mut self) -> Syntax {
        match self.scan() {
            Ok(()) if self.depth == 0 => Syntax::Ok,
            Ok(()) if self.conditional => Syntax::Skipped,
            Ok(()) => {
                let (open, line) = self.stack[self.depth - 1];
                let more = if self.depth > 1 {
                    format!(" ({} delimiters are left open)", self.depth)
                } else {
                    String::new()
                };
                Syntax::Error(format!(
                    "`{}` opened at line {line} is never closed{more}",
                    char::from(open)
                ))
            }
            Err(Stop::TooDeep) => Syntax::Skipped,
            Err(Stop::Error(_)) if self.conditional => Syntax::Skipped,
            Err(Stop::Error(message)) => Syntax::Error(message),
        }
    }

    fn peek(&self, at: usize) -> u8 {
        self.s.get(at).copied().unwrap_or(0)
    }

    fn c_family(&self) -> bool {
        matches!(self.lang, Lang::C | Lang::Go)
    }

    fn scan(&mut self) -> Result<(), Stop> {
        let mut line_start = true;
        while self.i < self.s.len() {
            let b = self.s[self.i];
            match b {
                b'\n' => {
                    self.line += 1;
                    self.i += 1;
                    line_start = true;
                    continue;
                }
                b' ' | b'\t' | b'\r' | 0x0c => {
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            let was_line_start = line_start;
            line_start = false;
            match b {
                b'#' if self.lang == Lang::C && was_line_start => self.directive(),
                b'#' if matches!(self.lang, Lang::Python | Lang::Toml) => self.skip_line(),
                b'/' if self.c_family() && self.peek(self.i + 1) == b'/' => self.skip_line(),
                b'/' if self.c_family() && self.peek(self.i + 1) == b'*' => self.block_comment()?,
                b'"' | b'\'' if matches!(self.lang, Lang::Python | Lang::Toml) => {
                    self.py_string(b)?
                }
                b'"' => self.quoted(b'"', "string literal")?,
                b'\'' => self.quoted(b'\'', "character literal")?,
                b'`' if self.lang == Lang::Go => self.go_raw()?,
                b'R' if self.lang == Lang::C && self.peek(self.i + 1) == b'"' => self.cpp_raw()?,
                b'(' | b'[' | b'{' => {
                    if self.depth == STACK_CAP {
                        return Err(Stop::TooDeep);
                    }
                    self.stack[self.depth] = (b, self.line);
                    self.depth += 1;
                    self.i += 1;
                }
                b')' | b']' | b'}' => {
                    self.close(b)?;
                    self.i += 1;
                }
                b'0'..=b'9' => self.number(),
                b if b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 => self.word(),
                _ => self.i += 1,
            }
        }
        Ok(())
    }

    fn close(&mut self, b: u8) -> Result<(), Stop> {
        let want = match b {
            b')' => b'(',
            b']' => b'[',
            _ => b'{',
        };
        if self.depth == 0 {
            return Err(Stop::Error(format!(
                "line {}: unexpected `{}`: nothing is open there",
                self.line,
                char::from(b)
            )));
        }
        let (open, line) = self.stack[self.depth - 1];
        if open != want {
            return Err(Stop::Error(format!(
                "line {}: `{}` does not close `{}` opened at line {line}",
                self.line,
                char::from(b),
                char::from(open)
            )));
        }
        self.depth -= 1;
        Ok(())
    }

    /// Skips to the end of the line (not past the newline).
    fn skip_line(&mut self) {
        while self.i < self.s.len() && self.s[self.i] != b'\n' {
            self.i += 1;
        }
    }

    /// A preprocessor line (with `\` continuations); notes conditional compilation.
    fn directive(&mut self) {
        let mut j = self.i + 1;
        while matches!(self.peek(j), b' ' | b'\t') {
            j += 1;
        }
        let start = j;
        while self.peek(j).is_ascii_alphabetic() {
            j += 1;
        }
        if matches!(
            &self.s[start..j],
            b"if" | b"ifdef" | b"ifndef" | b"elif" | b"else" | b"elifdef" | b"elifndef"
        ) {
            self.conditional = true;
        }
        while self.i < self.s.len() {
            if self.s[self.i] == b'\n' {
                let before = &self.s[..self.i];
                let continued = before.ends_with(b"\\") || before.ends_with(b"\\\r");
                if !continued {
                    return;
                }
                self.line += 1;
            }
            self.i += 1;
        }
    }

    fn block_comment(&mut self) -> Result<(), Stop> {
        let line = self.line;
        self.i += 2;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'*' if self.peek(self.i + 1) == b'/' => {
                    self.i += 2;
                    return Ok(());
                }
                b'\n' => self.line += 1,
                _ => {}
            }
            self.i += 1;
        }
        Err(Stop::Error(format!(
            "line {line}: unterminated block comment (no closing */)"
        )))
    }

    /// A one-line quoted literal with backslash escapes (a backslash-newline continues it).
    fn quoted(&mut self, quote: u8, what: &str) -> Result<(), Stop> {
        let line = self.line;
        self.i += 1;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'\\' => {
                    if self.peek(self.i + 1) == b'\n' {
                        self.line += 1;
                    }
                    self.i += 2;
                    continue;
                }
                b'\n' => break,
                c if c == quote => {
                    self.i += 1;
                    return Ok(());
                }
                _ => {}
            }
            self.i += 1;
        }
        Err(Stop::Error(format!("line {line}: unterminated {what}")))
    }

    fn go_raw(&mut self) -> Result<(), Stop> {
        let line = self.line;
        self.i += 1;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'`' => {
                    self.i += 1;
                    return Ok(());
                }
                b'\n' => self.line += 1,
                _ => {}
            }
            self.i += 1;
        }
        Err(Stop::Error(format!(
            "line {line}: unterminated raw string (no closing `)"
        )))
    }

    /// `R"delim( ... )delim"`; `self.i` is at the `R`.
    fn cpp_raw(&mut self) -> Result<(), Stop> {
        let line = self.line;
        let open = self.i + 2;
        let mut j = open;
        while j < self.s.len()
            && j - open <= 16
            && !matches!(self.s[j], b'(' | b' ' | b'\\' | b')' | b'\n' | b'"')
        {
            j += 1;
        }
        if self.peek(j) != b'(' {
            // Not a raw string after all: an ordinary string follows an identifier `R`.
            self.i += 1;
            return Ok(());
        }
        let delim = &self.s[open..j];
        self.i = j + 1;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b')' if self.s[self.i + 1..].starts_with(delim)
                    && self.peek(self.i + 1 + delim.len()) == b'"' =>
                {
                    self.i += delim.len() + 2;
                    return Ok(());
                }
                b'\n' => self.line += 1,
                _ => {}
            }
            self.i += 1;
        }
        Err(Stop::Error(format!(
            "line {line}: unterminated raw string literal"
        )))
    }

    /// Python and TOML strings: triple-quoted ones span lines; TOML's single-quoted strings
    /// are literal (no escapes).
    fn py_string(&mut self, quote: u8) -> Result<(), Stop> {
        let line = self.line;
        let escapes = !(self.lang == Lang::Toml && quote == b'\'');
        if self.peek(self.i + 1) == quote && self.peek(self.i + 2) == quote {
            self.i += 3;
            while self.i < self.s.len() {
                match self.s[self.i] {
                    b'\\' if escapes => {
                        if self.peek(self.i + 1) == b'\n' {
                            self.line += 1;
                        }
                        self.i += 2;
                        continue;
                    }
                    b'\n' => self.line += 1,
                    c if c == quote
                        && self.peek(self.i + 1) == quote
                        && self.peek(self.i + 2) == quote =>
                    {
                        // A closing run may hold up to two more quotes that belong to the text.
                        let mut end = self.i + 3;
                        while self.peek(end) == quote && end < self.i + 5 {
                            end += 1;
                        }
                        self.i = end;
                        return Ok(());
                    }
                    _ => {}
                }
                self.i += 1;
            }
            return Err(Stop::Error(format!(
                "line {line}: unterminated triple-quoted string"
            )));
        }
        if escapes {
            return self.quoted(quote, "string literal");
        }
        self.i += 1;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'\n' => break,
                c if c == quote => {
                    self.i += 1;
                    return Ok(());
                }
                _ => {}
            }
            self.i += 1;
        }
        Err(Stop::Error(format!(
            "line {line}: unterminated string literal"
        )))
    }

    /// A number literal; in C-family files a `'` between digits is a digit separator.
    fn number(&mut self) {
        while self.i < self.s.len() {
            let b = self.s[self.i];
            let exponent_sign =
                matches!(b, b'+' | b'-') && matches!(self.s[self.i - 1], b'e' | b'E' | b'p' | b'P');
            let separator =
                b == b'\'' && self.lang == Lang::C && self.peek(self.i + 1).is_ascii_alphanumeric();
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || exponent_sign || separator {
                self.i += 1;
            } else {
                return;
            }
        }
    }

    fn word(&mut self) {
        while self.i < self.s.len() {
            let b = self.s[self.i];
            if b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80 {
                self.i += 1;
            } else {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> Syntax {
        check(Path::new("x.cpp"), text.as_bytes()).unwrap()
    }

    #[test]
    fn digit_separators_are_not_character_literals() {
        assert_eq!(c("int x = 1'000'000; char c = 'a';\n"), Syntax::Ok);
        assert_eq!(c("auto h = 0xFF'FF; { }"), Syntax::Ok);
    }

    #[test]
    fn unbalanced_braces_are_reported_with_lines() {
        let Syntax::Error(m) = c("int main() {\n  if (x) {\n}\n") else {
            panic!()
        };
        assert!(m.contains("opened at line 1"), "{m}");
        let Syntax::Error(m) = c("f(]\n") else {
            panic!()
        };
        assert!(m.contains("`]` does not close `(`"), "{m}");
    }

    #[test]
    fn conditional_compilation_that_does_not_balance_is_skipped() {
        let text = "#if A\nvoid f() {\n#else\nvoid g() {\n#endif\n}\n";
        assert_eq!(c(text), Syntax::Skipped);
        assert_eq!(c("#ifdef A\nint x;\n#endif\nvoid f() {}\n"), Syntax::Ok);
    }

    #[test]
    fn the_stack_cap_skips() {
        let deep = "(".repeat(300) + &")".repeat(300);
        assert_eq!(c(&deep), Syntax::Skipped);
    }

    #[test]
    fn python_triple_quotes_and_comments() {
        let py = |t: &str| check(Path::new("a.py"), t.as_bytes()).unwrap();
        assert_eq!(
            py("s = \"\"\"(\n[\n\"\"\"  # ) not code\nx = [1]\n"),
            Syntax::Ok
        );
        assert!(matches!(py("x = '''open\n"), Syntax::Error(_)));
    }

    #[test]
    fn unknown_and_jsonc_files_are_not_checked() {
        assert_eq!(check(Path::new("a.rs"), b"fn {"), None);
        assert_eq!(check(Path::new("tsconfig.base.json"), b"{,}"), None);
        assert_eq!(check(Path::new(".vscode/settings.json"), b"{//\n}"), None);
        assert!(matches!(
            check(Path::new("a.json"), b"{\"a\": 1,}"),
            Some(Syntax::Error(_))
        ));
    }
}
