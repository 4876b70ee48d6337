//! The languages checked, chosen by file extension, and their grammars.

use std::path::Path;

use tree_sitter::Language;

/// A language the check parses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    /// `.rs`
    Rust,
    /// `.py`, `.pyi`, `.pyw`
    Python,
    /// `.js`, `.mjs`, `.cjs`, `.jsx` (JSX included)
    JavaScript,
    /// `.ts`, `.mts`, `.cts`
    TypeScript,
    /// `.tsx`
    Tsx,
    /// `.go`
    Go,
    /// `.c`
    C,
    /// `.h`, `.cc`, `.cpp`, `.cxx`, `.c++`, `.hpp`, `.hh`, `.hxx`, `.h++`, `.ipp`, `.tpp`
    Cpp,
    /// `.java`
    Java,
    /// `.json`
    Json,
    /// `.toml`
    Toml,
    /// `.yaml`, `.yml`
    Yaml,
}

impl Lang {
    /// Every language, in the order of [`Lang::index`].
    pub const ALL: [Lang; 12] = [
        Lang::Rust,
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Go,
        Lang::C,
        Lang::Cpp,
        Lang::Java,
        Lang::Json,
        Lang::Toml,
        Lang::Yaml,
    ];

    /// The language's usual name.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "Rust",
            Lang::Python => "Python",
            Lang::JavaScript => "JavaScript",
            Lang::TypeScript => "TypeScript",
            Lang::Tsx => "TSX",
            Lang::Go => "Go",
            Lang::C => "C",
            Lang::Cpp => "C++",
            Lang::Java => "Java",
            Lang::Json => "JSON",
            Lang::Toml => "TOML",
            Lang::Yaml => "YAML",
        }
    }

    /// The position of the language in [`Lang::ALL`] (and in the per-thread parser cache).
    pub(super) fn index(self) -> usize {
        self as usize
    }

    /// The grammar.
    pub(super) fn grammar(self) -> Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::C => tree_sitter_c::LANGUAGE.into(),
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::Json => tree_sitter_json::LANGUAGE.into(),
            Lang::Toml => tree_sitter_toml_ng::LANGUAGE.into(),
            Lang::Yaml => tree_sitter_yaml::LANGUAGE.into(),
        }
    }
}

/// The language of the file at `path`, by its extension (case-insensitive); `None` for any
/// other file.
///
/// `.h` is read as C++: C++ headers use it as often as C ones, and the C++ grammar reads almost
/// all C, while the C grammar would see every class in a C++ header as an error. JSON files
/// known to allow comments and trailing commas (`tsconfig*.json`, `jsconfig.json`,
/// `devcontainer.json`, anything directly in `.vscode/`: the advisory scanner's list,
/// [`crate::ops::syntax::is_jsonc`]) and `.jsonc` are not checked.
pub fn language_of(path: &Path) -> Option<Lang> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "rs" => Lang::Rust,
        "py" | "pyi" | "pyw" => Lang::Python,
        "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
        "ts" | "mts" | "cts" => Lang::TypeScript,
        "tsx" => Lang::Tsx,
        "go" => Lang::Go,
        "c" => Lang::C,
        "h" | "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "ipp" | "tpp" => {
            Lang::Cpp
        }
        "java" => Lang::Java,
        "json" if crate::ops::syntax::is_jsonc(path) => return None,
        "json" => Lang::Json,
        "toml" => Lang::Toml,
        "yaml" | "yml" => Lang::Yaml,
        _ => return None,
    })
}
