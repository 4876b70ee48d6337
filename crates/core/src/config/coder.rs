//! The coder profile's configuration, in the coder worker's own YAML value shape (the
//! worker's "Value shape"), so an existing coder configuration works unchanged:
//!
//! ```yaml
//! base_paths: ["./", "/tmp"]        # allowed roots; the first is the primary root
//! non_accessible_globs: ["**/.env", "**/*.pem"]
//! default_exclude_globs: ["**/.git/**", "**/node_modules/**"]
//! max_read_bytes: 10485760
//! ```
//!
//! `${VAR}` placeholders in string values are expanded from the environment when the file is
//! read. The legacy `base_path` is a one-root list; setting both is refused. Jail fields
//! (`base_paths`, `base_path`, `non_accessible_globs`, `default_exclude_globs`) take effect only
//! at start; the numeric [`CoderLimits`] may be reloaded while running.

use std::path::{Path, PathBuf};

use yaml_rust2::{Yaml, YamlLoader};

use super::{ConfigError, Problem};

/// The numeric budgets and limits, which reload while the server runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoderLimits {
    /// Per-file read ceiling. By default 10 MiB.
    pub max_read_bytes: u64,
    /// Per-file write ceiling. By default 10 MiB.
    pub max_write_bytes: u64,
    /// Tree depth when unset. By default 4.
    pub tree_default_depth: u32,
    /// Children listed per tree folder. By default 50.
    pub tree_per_folder_limit: u32,
    /// list-folder page size when unset. By default 100.
    pub list_default_page_size: u32,
    /// The largest list-folder page. By default 1000.
    pub list_max_page_size: u32,
    /// Search match cap when unset. By default 1000.
    pub search_default_max_matches: u32,
    /// Bytes of a line search considers and returns. By default 4096.
    pub search_default_max_line_bytes: u32,
    /// Bytes of one search response. By default 256 KiB.
    pub search_response_budget_bytes: u64,
    /// Bytes of one batch read. By default 1 MiB.
    pub batch_read_budget_bytes: u64,
    /// Bytes of a single-path full read. By default 128 KiB.
    pub max_output_bytes: u64,
}

impl Default for CoderLimits {
    fn default() -> Self {
        CoderLimits {
            max_read_bytes: 10 * 1024 * 1024,
            max_write_bytes: 10 * 1024 * 1024,
            tree_default_depth: 4,
            tree_per_folder_limit: 50,
            list_default_page_size: 100,
            list_max_page_size: 1000,
            search_default_max_matches: 1000,
            search_default_max_line_bytes: 4096,
            search_response_budget_bytes: 256 * 1024,
            batch_read_budget_bytes: 1024 * 1024,
            max_output_bytes: 128 * 1024,
        }
    }
}

/// The coder configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoderConfig {
    /// Allowed roots, primary first. By default `["./", "/tmp"]`.
    pub base_paths: Vec<PathBuf>,
    /// Listable but unreadable paths. By default none.
    pub non_accessible_globs: Vec<String>,
    /// Noise hidden from tree and search. By default `.git`, `node_modules`, `target`, `dist`,
    /// `.venv` and `__pycache__`.
    pub default_exclude_globs: Vec<String>,
    /// The numeric limits.
    pub limits: CoderLimits,
}

impl Default for CoderConfig {
    fn default() -> Self {
        CoderConfig {
            base_paths: vec![PathBuf::from("./"), PathBuf::from("/tmp")],
            non_accessible_globs: Vec::new(),
            default_exclude_globs: [
                "**/.git/**",
                "**/node_modules/**",
                "**/target/**",
                "**/dist/**",
                "**/.venv/**",
                "**/__pycache__/**",
            ]
            .map(String::from)
            .to_vec(),
            limits: CoderLimits::default(),
        }
    }
}

impl CoderConfig {
    /// Whether `other` changes anything the jail is built from.
    pub fn same_jail(&self, other: &CoderConfig) -> bool {
        self.base_paths == other.base_paths
            && self.non_accessible_globs == other.non_accessible_globs
            && self.default_exclude_globs == other.default_exclude_globs
    }

    /// Reads and validates the YAML file at `path`.
    pub fn load(path: &Path) -> Result<CoderConfig, ConfigError> {
        let text = super::read_file(path)?;
        CoderConfig::parse(&text, &path.display().to_string(), &|k| {
            std::env::var(k).ok()
        })
    }

    /// Validates YAML `text`, expanding `${VAR}` through `env`.
    pub fn parse(
        text: &str,
        source_name: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<CoderConfig, ConfigError> {
        let mut problems = Vec::new();
        let config = match YamlLoader::load_from_str(text) {
            Ok(docs) => validate(docs.first(), env, &mut problems),
            Err(e) => {
                problems.push(Problem {
                    key: String::new(),
                    message: format!("not valid YAML: {e}"),
                });
                CoderConfig::default()
            }
        };
        ConfigError::unless_empty(source_name, problems, config)
    }
}

const JAIL_KEYS: [&str; 4] = [
    "base_paths",
    "base_path",
    "non_accessible_globs",
    "default_exclude_globs",
];

fn validate(
    doc: Option<&Yaml>,
    env: &dyn Fn(&str) -> Option<String>,
    problems: &mut Vec<Problem>,
) -> CoderConfig {
    let mut config = CoderConfig::default();
    let mut problem = |key: &str, message: String| {
        problems.push(Problem {
            key: key.to_string(),
            message,
        })
    };
    let hash = match doc {
        None | Some(Yaml::Null) => return config,
        Some(Yaml::Hash(h)) => h,
        // The coder worker's seed files are sometimes one-entry lists of the mapping.
        Some(Yaml::Array(items)) if items.len() == 1 && matches!(items[0], Yaml::Hash(_)) => {
            match &items[0] {
                Yaml::Hash(h) => h,
                _ => return config,
            }
        }
        Some(_) => {
            problem(
                "",
                "the configuration must be a mapping of keys to values".into(),
            );
            return config;
        }
    };
    let mut base_paths: Option<Vec<PathBuf>> = None;
    let mut base_path: Option<PathBuf> = None;
    let mut limits = CoderLimits::default();
    for (key, value) in hash {
        let Some(key) = key.as_str() else {
            problem("", format!("keys must be strings, not {key:?}"));
            continue;
        };
        match key {
            "base_paths" => {
                base_paths = strings(key, value, env, &mut problem)
                    .map(|v| v.into_iter().map(PathBuf::from).collect());
            }
            "base_path" => {
                if let Some(s) = string(key, value, env, &mut problem) {
                    base_path = Some(PathBuf::from(s));
                }
            }
            "non_accessible_globs" => {
                if let Some(v) = strings(key, value, env, &mut problem) {
                    config.non_accessible_globs = v;
                }
            }
            "default_exclude_globs" => {
                if let Some(v) = strings(key, value, env, &mut problem) {
                    config.default_exclude_globs = v;
                }
            }
            _ => {
                let slot: Option<NumberSlot<'_>> = match key {
                    "max_read_bytes" => Some(NumberSlot::U64(&mut limits.max_read_bytes)),
                    "max_write_bytes" => Some(NumberSlot::U64(&mut limits.max_write_bytes)),
                    "tree_default_depth" => Some(NumberSlot::U32(&mut limits.tree_default_depth)),
                    "tree_per_folder_limit" => {
                        Some(NumberSlot::U32(&mut limits.tree_per_folder_limit))
                    }
                    "list_default_page_size" => {
                        Some(NumberSlot::U32(&mut limits.list_default_page_size))
                    }
                    "list_max_page_size" => Some(NumberSlot::U32(&mut limits.list_max_page_size)),
                    "search_default_max_matches" => {
                        Some(NumberSlot::U32(&mut limits.search_default_max_matches))
                    }
                    "search_default_max_line_bytes" => {
                        Some(NumberSlot::U32(&mut limits.search_default_max_line_bytes))
                    }
                    "search_response_budget_bytes" => {
                        Some(NumberSlot::U64(&mut limits.search_response_budget_bytes))
                    }
                    "batch_read_budget_bytes" => {
                        Some(NumberSlot::U64(&mut limits.batch_read_budget_bytes))
                    }
                    "max_output_bytes" => Some(NumberSlot::U64(&mut limits.max_output_bytes)),
                    _ => None,
                };
                match slot {
                    Some(slot) => number(key, value, env, slot, &mut problem),
                    None => problem(
                        key,
                        format!(
                            "unknown key; the keys are {}, max_read_bytes, max_write_bytes, \
                             tree_default_depth, tree_per_folder_limit, list_default_page_size, \
                             list_max_page_size, search_default_max_matches, \
                             search_default_max_line_bytes, search_response_budget_bytes, \
                             batch_read_budget_bytes, max_output_bytes",
                            JAIL_KEYS.join(", ")
                        ),
                    ),
                }
            }
        }
    }
    match (base_paths, base_path) {
        (Some(_), Some(_)) => problem(
            "base_path",
            "base_paths and the legacy base_path are both set; keep base_paths (a list) and \
             remove base_path"
                .into(),
        ),
        (Some(paths), None) => config.base_paths = paths,
        (None, Some(path)) => config.base_paths = vec![path],
        (None, None) => {}
    }
    config.limits = limits;
    // The patterns are compiled here exactly as the jail will compile them, so a file that
    // passes starts a server.
    for bad in super::check_secret_globs("non_accessible_globs", &config.non_accessible_globs) {
        problem(&bad.key, bad.message);
    }
    let key = "default_exclude_globs";
    for (i, glob) in config.default_exclude_globs.iter().enumerate() {
        if let Err(e) = crate::access::jail::compile_glob(glob, false) {
            problem(
                &format!("{key}[{i}]"),
                format!("{glob:?} is not a glob pattern: {}", e.kind()),
            );
        }
    }
    config
}

enum NumberSlot<'a> {
    U64(&'a mut u64),
    U32(&'a mut u32),
}

fn number(
    key: &str,
    value: &Yaml,
    env: &dyn Fn(&str) -> Option<String>,
    slot: NumberSlot<'_>,
    problem: &mut dyn FnMut(&str, String),
) {
    let parsed: Option<i64> = match value {
        Yaml::Integer(n) => Some(*n),
        Yaml::String(s) => expand(s, env)
            .map_err(|m| problem(key, m))
            .ok()
            .and_then(|s| s.trim().parse().ok()),
        _ => None,
    };
    let bad = || format!("{value:?} is not a whole number of 0 or more");
    match (parsed, slot) {
        (Some(n), NumberSlot::U64(slot)) if n >= 0 => *slot = n as u64,
        (Some(n), NumberSlot::U32(slot)) if (0..=i64::from(u32::MAX)).contains(&n) => {
            *slot = n as u32
        }
        _ => problem(key, bad()),
    }
}

fn string(
    key: &str,
    value: &Yaml,
    env: &dyn Fn(&str) -> Option<String>,
    problem: &mut dyn FnMut(&str, String),
) -> Option<String> {
    match value {
        Yaml::String(s) => expand(s, env).map_err(|m| problem(key, m)).ok(),
        other => {
            problem(key, format!("must be a string, not {other:?}"));
            None
        }
    }
}

fn strings(
    key: &str,
    value: &Yaml,
    env: &dyn Fn(&str) -> Option<String>,
    problem: &mut dyn FnMut(&str, String),
) -> Option<Vec<String>> {
    let Yaml::Array(items) = value else {
        problem(key, format!("must be a list of strings, not {value:?}"));
        return None;
    };
    let mut out = Vec::new();
    for item in items {
        out.push(string(key, item, env, problem)?);
    }
    Some(out)
}

/// Expands `${VAR}` placeholders; an unset variable is an error naming it.
fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("{text:?} has a ${{ without its closing }}"));
        };
        let name = &after[..end];
        match env(name) {
            Some(value) => out.push_str(&value),
            None => {
                return Err(format!(
                    "{text:?} uses ${{{name}}}, but the environment variable {name} is not set"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn globs_that_do_not_compile_are_refused_each_by_its_place() {
        let yaml = "non_accessible_globs: [\"**/.env\", \"**/[.pem\"]\n\
                    default_exclude_globs: [\"{target\", \"**/[a-]x\"]\n";
        let err = CoderConfig::parse(yaml, "c.yaml", &no_env).unwrap_err();
        let keys: Vec<&str> = err.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            ["non_accessible_globs[1]", "default_exclude_globs[0]"]
        );
        assert!(
            err.problems[0]
                .message
                .starts_with("\"**/[.pem\" is not a glob pattern: ")
        );
        // What passes here is what the jail compiles.
        let ok = CoderConfig::parse("non_accessible_globs: [\"**/[.]env\"]\n", "c", &no_env);
        let config = ok.unwrap();
        let jail = crate::access::Jail::new(&crate::access::JailConfig {
            roots: vec![std::env::temp_dir()],
            non_accessible: config.non_accessible_globs,
            default_excludes: config.default_exclude_globs,
        });
        assert!(jail.is_ok());
    }

    #[test]
    fn the_spec_value_shape_parses() {
        let text = r#"
base_paths: ["./", "/tmp"]
non_accessible_globs:
  - "**/.env"
  - "**/*.pem"
default_exclude_globs: ["**/.git/**"]
max_read_bytes: 10485760
tree_per_folder_limit: 7
max_output_bytes: 131072
"#;
        let c = CoderConfig::parse(text, "t", &no_env).unwrap();
        assert_eq!(c.base_paths, [PathBuf::from("./"), PathBuf::from("/tmp")]);
        assert_eq!(c.non_accessible_globs, ["**/.env", "**/*.pem"]);
        assert_eq!(c.limits.tree_per_folder_limit, 7);
        assert_eq!(c.limits.list_max_page_size, 1000);
    }

    #[test]
    fn legacy_base_path_is_a_one_root_list_and_both_keys_refuse() {
        let c = CoderConfig::parse("base_path: /srv/p\n", "t", &no_env).unwrap();
        assert_eq!(c.base_paths, [PathBuf::from("/srv/p")]);
        let err =
            CoderConfig::parse("base_path: /a\nbase_paths: [/b]\n", "t", &no_env).unwrap_err();
        assert_eq!(err.problems.len(), 1);
        assert!(err.problems[0].message.contains("both set"), "{err}");
    }

    #[test]
    fn placeholders_expand_from_the_environment_and_unset_ones_refuse() {
        let env = |k: &str| (k == "PROJECT").then(|| "/srv/project".to_string());
        let c = CoderConfig::parse("base_paths: [\"${PROJECT}/src\"]\n", "t", &env).unwrap();
        assert_eq!(c.base_paths, [PathBuf::from("/srv/project/src")]);
        let err = CoderConfig::parse("base_paths: [\"${NOPE}\"]\n", "t", &env).unwrap_err();
        assert!(err.to_string().contains("NOPE is not set"), "{err}");
    }

    #[test]
    fn every_bad_value_is_named_at_once() {
        let err = CoderConfig::parse(
            "max_read_bytes: -1\ncolour: blue\nbase_paths: /tmp\ntree_default_depth: deep\n",
            "t",
            &no_env,
        )
        .unwrap_err();
        let keys: Vec<&str> = err.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "max_read_bytes",
                "colour",
                "base_paths",
                "tree_default_depth"
            ]
        );
    }

    #[test]
    fn no_file_is_the_built_in_default_jail() {
        let c = CoderConfig::parse("", "t", &no_env).unwrap();
        assert_eq!(c, CoderConfig::default());
        assert!(c.non_accessible_globs.is_empty());
        assert!(c.same_jail(&CoderConfig::default()));
    }
}
