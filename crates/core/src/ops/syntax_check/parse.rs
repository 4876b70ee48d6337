//! Parsing with a per-thread cache of parsers, and the syntax errors of a tree.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Node, ParseOptions, Parser, Tree};

use super::lang::Lang;

/// How long one parse may take before it is abandoned (and the check says nothing). Above what
/// a file at the size bound needs on a loaded machine (about 300 ms for 2 MiB); it stops a
/// pathological input from holding up a write.
const PARSE_DEADLINE: Duration = Duration::from_secs(1);

/// The longest quoted snippet of source in a description, in characters.
const SNIPPET_CHARS: usize = 24;

thread_local! {
    /// One parser per language, made on first use by this thread.
    static PARSERS: RefCell<[Option<Parser>; Lang::ALL.len()]> =
        const { RefCell::new([const { None }; Lang::ALL.len()]) };
}

/// One syntax error of a tree: where it is and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Found {
    /// 0-based rows of its first and last character.
    pub start_row: usize,
    pub end_row: usize,
    /// 0-based byte column of its start in its first row.
    pub column: usize,
    /// What it is, for the model: `missing ")"`, `unexpected "}"`.
    pub message: String,
}

/// Parses `text` as `lang`, reusing the unchanged parts of `old` (a tree of the text before,
/// already edited to match `text`, [`Tree::edit`]): `None` when the grammar cannot be loaded
/// or the parse ran past its deadline.
pub(super) fn parse(lang: Lang, text: &[u8], old: Option<&Tree>) -> Option<Tree> {
    let deadline = Instant::now() + PARSE_DEADLINE;
    let mut run = |parser: &mut Parser| {
        let mut past_deadline = |_: &tree_sitter::ParseState| {
            if Instant::now() > deadline {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = ParseOptions::new().progress_callback(&mut past_deadline);
        let len = text.len();
        let tree = parser.parse_with_options(
            &mut |at, _| if at < len { &text[at..] } else { &[] },
            old,
            Some(options),
        );
        if tree.is_none() {
            // An abandoned parse is resumed by the next call unless reset.
            parser.reset();
        }
        tree
    };
    PARSERS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut parsers) => {
            let slot = &mut parsers[lang.index()];
            if slot.is_none() {
                *slot = Some(new_parser(lang)?);
            }
            slot.as_mut().and_then(&mut run)
        }
        // Not reachable (parsing calls back into nothing that parses), but never a panic.
        Err(_) => run(&mut new_parser(lang)?),
    })
}

fn new_parser(lang: Lang) -> Option<Parser> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    Some(parser)
}

/// Makes sure this thread has `lang`'s parser and that its grammar's tables have been touched
/// once, so that the first real check does not pay for it.
pub(super) fn prime(lang: Lang) {
    let sample: &[u8] = match lang {
        Lang::Rust => b"fn f() -> u8 { 1 }\n",
        Lang::Python => b"def f():\n    return 1\n",
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => b"function f() { return 1; }\n",
        Lang::Go => b"package p\nfunc f() int { return 1 }\n",
        Lang::C | Lang::Cpp => b"int f(void) { return 1; }\n",
        Lang::Java => b"class A { int f() { return 1; } }\n",
        Lang::Json => b"{\"a\": [1, true, null]}\n",
        Lang::Toml => b"[a]\nb = 1\n",
        Lang::Yaml => b"a:\n  - 1\n",
    };
    let _ = parse(lang, sample, None);
}

/// The syntax errors of `text` parsed as `lang`, in source order; `None` when it could not be
/// parsed (see [`parse`]). For tests: the check parses through [`parse`] and [`errors_in`].
#[cfg(test)]
pub(super) fn errors(lang: Lang, text: &[u8]) -> Option<Vec<Found>> {
    Some(errors_in(&parse(lang, text, None)?, text))
}

/// The syntax errors of `tree`, the tree of `text`, in source order.
pub(super) fn errors_in(tree: &Tree, text: &[u8]) -> Vec<Found> {
    let mut out = Vec::new();
    let root = tree.root_node();
    if !root.has_error() {
        return out;
    }
    // Depth first, entering only nodes that hold an error. An ERROR node with errors inside it
    // is the parser's recovery around them: the errors inside are reported, nearer the cause.
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let enter = if node.is_error() {
            let mut children = node.walk();
            let nested = node.children(&mut children).any(|c| c.has_error());
            if !nested {
                out.push(error_at(node, text));
            }
            nested
        } else if node.is_missing() {
            out.push(missing_at(node));
            false
        } else {
            node.has_error()
        };
        if enter && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

fn found(node: Node, message: String) -> Found {
    let start = node.start_position();
    let end = node.end_position();
    // A node ending at the start of a row (after its newline) ends on the row before.
    let end_row = if end.column == 0 && end.row > start.row {
        end.row - 1
    } else {
        end.row
    };
    Found {
        start_row: start.row,
        end_row,
        column: start.column,
        message,
    }
}

fn missing_at(node: Node) -> Found {
    let what = if node.is_named() {
        node.kind().replace('_', " ")
    } else {
        format!("{:?}", node.kind())
    };
    let mut message = format!("missing {what}");
    // A closer that is missing: say where what it closes was opened.
    let opener = match node.kind() {
        "}" => Some("{"),
        ")" => Some("("),
        "]" => Some("["),
        _ => None,
    };
    if let Some(opener) = opener
        && let Some(parent) = node.parent()
        && let Some(open) = (0..parent.child_count())
            .filter_map(|i| parent.child(u32::try_from(i).ok()?))
            .take_while(|c| c.start_byte() <= node.start_byte() && c.id() != node.id())
            .filter(|c| c.kind() == opener)
            .last()
        && open.start_position().row != node.start_position().row
    {
        message.push_str(&format!(
            " (to close the {opener:?} of line {})",
            open.start_position().row + 1
        ));
    }
    found(node, message)
}

fn error_at(node: Node, text: &[u8]) -> Found {
    // A bracket opened among the tokens the parser gave up on and not closed there: the
    // usual cause, said as such, at the bracket's line.
    if let Some(open) = unclosed(node) {
        let mut at = found(node, format!("unclosed {:?}", open.kind()));
        at.start_row = open.start_position().row;
        at.column = open.start_position().column;
        return at;
    }
    // The first token the parser could not fit.
    let mut first = node;
    while let Some(child) = first.child(0) {
        first = child;
    }
    let whole = snippet(&text[node.byte_range()]);
    let message = if node.child_count() <= 1 || whole == snippet(&text[first.byte_range()]) {
        format!("unexpected {whole:?}")
    } else {
        format!("cannot parse {whole:?}")
    };
    found(node, message)
}

/// The innermost bracket among `node`'s children that none of its later children closes (the
/// last one left open: an outer one is usually left open only because of it).
fn unclosed(node: Node) -> Option<Node> {
    let mut open: Vec<Node> = Vec::new();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        let opener = match child.kind() {
            "}" => "{",
            ")" => "(",
            "]" => "[",
            "{" | "(" | "[" => {
                open.push(child);
                continue;
            }
            _ => continue,
        };
        // A closer closes the nearest opener of its kind; a stray one closes nothing.
        if let Some(at) = open.iter().rposition(|o| o.kind() == opener) {
            open.truncate(at);
        }
    }
    open.pop()
}

/// The start of `bytes` as one short line: every run of white space one space, cut with `…`.
fn snippet(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    for (count, word) in text.split_whitespace().enumerate() {
        if count > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > SNIPPET_CHARS {
            let cut: String = out.chars().take(SNIPPET_CHARS).collect();
            return format!("{}…", cut.trim_end());
        }
    }
    out
}
