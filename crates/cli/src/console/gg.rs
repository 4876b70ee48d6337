//! The gg configuration editor's form: what the page edits, turned into the TOML file and read
//! back from one. Nothing here judges a value: the form is rendered as written (a lineCap of
//! `abc` becomes the string "abc") and `GgConfig::parse`, the server's own validation, names
//! whatever it cannot honour.

use fsgate_core::config::gg::{Capability, DEFAULT_LINE_CAP, ReadMode, all_tools};
use serde_json::{Map, Value, json};
use toml::{Table, Value as Toml};

/// The capability groups of the editor, each with its capabilities, the tools they buy and
/// what each does.
pub fn meta() -> Value {
    let capabilities: Vec<Value> = Capability::ALL
        .iter()
        .map(|c| {
            json!({
                "name": c.name(),
                "tools": c.tools(),
                "description": describe(*c),
            })
        })
        .collect();
    json!({
        "groups": [{
            "name": "Filesystem",
            "description": "The editor primitives, the two directory calls and the search. Each \
                            capability is its own, so one can be withheld or reconfigured \
                            without disturbing the others.",
            "capabilities": capabilities,
        }],
        "modes": [
            {"name": ReadMode::DefaultCap.name(), "description": "a read_file call that names no limit returns lineCap lines, from offset"},
            {"name": ReadMode::Unlimited.name(), "description": "a read_file call that names no limit returns the rest of the file, from offset to its end"},
        ],
        "tools": all_tools().collect::<Vec<_>>(),
        "defaultLineCap": DEFAULT_LINE_CAP,
    })
}

fn describe(cap: Capability) -> &'static str {
    match cap {
        Capability::ReadFile => "Read a file, under the read mode below.",
        Capability::WriteFile => "Create or overwrite a whole file (parents created).",
        Capability::EditFile => "Replace one exact, unique occurrence of a string.",
        Capability::ListDir => {
            "List a directory's entries, and render a depth-bounded tree beneath one."
        }
        Capability::Search => "Content search over the workspace, under the ignore rule.",
    }
}

/// The form of a fresh configuration: every capability enabled, default-cap at the default
/// lineCap, no agents, vision on.
pub fn default_form() -> Value {
    form_from_table(&Table::new())
}

/// The form showing TOML `text`, or `None` when it is not a TOML table.
pub fn form_from_text(text: &str) -> Option<Value> {
    text.parse::<Table>().ok().map(|t| form_from_table(&t))
}

fn form_from_table(root: &Table) -> Value {
    let caps = root.get("capabilities").and_then(Toml::as_table);
    let mut capabilities = Map::new();
    for cap in Capability::ALL {
        let table = caps
            .and_then(|c| c.get(cap.name()))
            .and_then(Toml::as_table);
        let enabled = table
            .and_then(|t| t.get("enabled"))
            .and_then(Toml::as_bool)
            .unwrap_or(true);
        let mut entry = json!({ "enabled": enabled });
        if cap == Capability::ReadFile {
            let implementation = match table.and_then(|t| t.get("implementation")) {
                None => ReadMode::DefaultCap.name().to_string(),
                Some(Toml::String(s)) => s.clone(),
                Some(other) => other.to_string(),
            };
            let line_cap = match table.and_then(|t| t.get("params")) {
                // A file without the table is a fresh one: offer the default to keep.
                None if table.is_none() => DEFAULT_LINE_CAP.to_string(),
                None => String::new(),
                Some(params) => params
                    .as_table()
                    .and_then(|p| p.get("lineCap"))
                    .map(Toml::to_string)
                    .unwrap_or_default(),
            };
            // The other params (the count budget) are not edited on the page, but carried
            // through it as written: a save must never drop them.
            let other: Map<String, Value> = table
                .and_then(|t| t.get("params"))
                .and_then(Toml::as_table)
                .map(|params| {
                    params
                        .iter()
                        .filter(|(k, _)| k.as_str() != "lineCap")
                        .map(|(k, v)| (k.clone(), json!(v.to_string())))
                        .collect()
                })
                .unwrap_or_default();
            entry["implementation"] = json!(implementation);
            entry["lineCap"] = json!(line_cap);
            entry["otherParams"] = Value::Object(other);
        }
        capabilities.insert(cap.name().to_string(), entry);
    }
    let agents: Vec<Value> = root
        .get("agents")
        .and_then(Toml::as_table)
        .map(|agents| {
            agents
                .iter()
                .map(|(name, value)| {
                    let allow: Vec<String> = value
                        .get("allow")
                        .and_then(Toml::as_array)
                        .map(|items| {
                            items
                                .iter()
                                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                                .collect()
                        })
                        .unwrap_or_default();
                    json!({ "name": name, "allow": allow.join(", ") })
                })
                .collect()
        })
        .unwrap_or_default();
    let vision = root
        .get("model")
        .and_then(|m| m.get("vision"))
        .and_then(Toml::as_bool)
        .unwrap_or(true);
    // Not edited on the page, but carried through it: a save must never drop them.
    let secrets: Vec<String> = root
        .get("access")
        .and_then(|a| a.get("non_accessible_globs"))
        .and_then(Toml::as_array)
        .map(|items| {
            items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                .collect()
        })
        .unwrap_or_default();
    // The code arm's switch and bounds: not on the page either, carried as written.
    let arm = root.get("arm").map(|v| match v {
        Toml::String(s) => s.clone(),
        other => other.to_string(),
    });
    let code: Map<String, Value> = root
        .get("code")
        .and_then(Toml::as_table)
        .map(|t| {
            t.iter()
                .map(|(k, v)| (k.clone(), json!(v.to_string())))
                .collect()
        })
        .unwrap_or_default();
    json!({
        "capabilities": capabilities,
        "agents": agents,
        "vision": vision,
        "nonAccessibleGlobs": secrets,
        "arm": arm,
        "code": code,
    })
}

/// The TOML file for `form`, every value as the form holds it.
pub fn render(form: &Value) -> String {
    let mut out = String::new();
    // A top-level key, so before every table.
    if let Some(arm) = form["arm"].as_str() {
        out.push_str(&format!("arm = {}\n", quoted(arm)));
    }
    for cap in Capability::ALL {
        let entry = &form["capabilities"][cap.name()];
        let enabled = entry["enabled"].as_bool().unwrap_or(true);
        out.push_str(&format!(
            "[capabilities.{}]\nenabled = {enabled}\n",
            cap.name()
        ));
        if cap == Capability::ReadFile {
            if let Some(imp) = entry["implementation"].as_str() {
                out.push_str(&format!("implementation = {}\n", quoted(imp)));
            }
            let line_cap = entry["lineCap"].as_str().map(str::trim).unwrap_or("");
            let mut params = Vec::new();
            if !line_cap.is_empty() {
                params.push(format!("lineCap = {}", literal(line_cap)));
            }
            if let Some(other) = entry["otherParams"].as_object() {
                for (name, value) in other {
                    let value = value.as_str().map(str::trim).unwrap_or("");
                    params.push(format!("{} = {}", key(name), literal(value)));
                }
            }
            if !params.is_empty() {
                out.push_str(&format!("params = {{ {} }}\n", params.join(", ")));
            }
        }
    }
    if let Some(agents) = form["agents"].as_array() {
        for agent in agents {
            let name = agent["name"].as_str().unwrap_or("");
            let allow: Vec<String> = agent["allow"]
                .as_str()
                .unwrap_or("")
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(quoted)
                .collect();
            out.push_str(&format!(
                "[agents.{}]\nallow = [{}]\n",
                key(name),
                allow.join(", ")
            ));
        }
    }
    let vision = form["vision"].as_bool().unwrap_or(true);
    out.push_str(&format!("[model]\nvision = {vision}\n"));
    if let Some(globs) = form["nonAccessibleGlobs"].as_array()
        && !globs.is_empty()
    {
        let globs: Vec<String> = globs.iter().filter_map(Value::as_str).map(quoted).collect();
        out.push_str(&format!(
            "[access]\nnon_accessible_globs = [{}]\n",
            globs.join(", ")
        ));
    }
    if let Some(code) = form["code"].as_object()
        && !code.is_empty()
    {
        out.push_str("[code]\n");
        for (name, value) in code {
            let value = value.as_str().map(str::trim).unwrap_or("");
            out.push_str(&format!("{} = {}\n", key(name), literal(value)));
        }
    }
    out
}

/// A value typed into the form as TOML: a TOML literal stays what it is (`250`, `2.5`,
/// `"250"`), anything else is taken as a string, so the validator names it as written.
fn literal(text: &str) -> String {
    if let Ok(table) = format!("v = {text}").parse::<Table>()
        && table.len() == 1
        && let Some(value) = table.get("v")
    {
        return match value {
            Toml::String(s) => quoted(s),
            other => other.to_string(),
        };
    }
    quoted(text)
}

/// `text` as a one-line TOML basic string, usable as a value and as a key.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A table key: bare when TOML allows it, quoted otherwise.
fn key(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        name.to_string()
    } else {
        quoted(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsgate_core::GgConfig;

    #[test]
    fn the_default_form_renders_a_file_equal_to_no_file() {
        let text = render(&default_form());
        assert_eq!(GgConfig::parse(&text, "t").unwrap(), GgConfig::default());
    }

    #[test]
    fn a_file_round_trips_through_the_form() {
        let text = "[capabilities.read-file]\nenabled = true\nimplementation = \"unlimited\"\n\
                    params = { lineCap = 250, countBudgetMs = 1000, countBudgetBytes = 4096 }\n\
                    [capabilities.write-file]\nenabled = false\n\
                    [agents.\"code reviewer\"]\nallow = [\"read_file\", \"tree\"]\n\
                    [model]\nvision = false\n\
                    [access]\nnon_accessible_globs = [\"**/.env\", \"**/*.pem\"]\n";
        let form = form_from_text(text).unwrap();
        assert_eq!(form["capabilities"]["read-file"]["lineCap"], "250");
        assert_eq!(form["agents"][0]["allow"], "read_file, tree");
        let rendered = render(&form);
        assert!(rendered.contains("countBudgetMs = 1000"), "{rendered}");
        // The code arm's switch and bounds are carried through a save as written.
        let text = "arm = \"code\"\n[code]\ncpu_limit_ms = 500\nimage_cost_rule = \"gemini\"\n";
        let rendered = render(&form_from_text(text).unwrap());
        let config = fsgate_core::GgConfig::parse(&rendered, "t").unwrap();
        assert_eq!(config.arm, fsgate_core::config::gg::Arm::Code, "{rendered}");
        assert_eq!(config.code.cpu_ms, 500);
        assert_eq!(
            config.code.image_rule,
            fsgate_core::window::ImageRule::Gemini
        );
        assert_eq!(
            GgConfig::parse(&rendered, "t").unwrap(),
            GgConfig::parse(text, "t").unwrap()
        );
    }

    #[test]
    fn bad_values_reach_the_validator_as_written() {
        let mut form = default_form();
        form["capabilities"]["read-file"]["lineCap"] = json!("abc");
        form["agents"] = json!([{"name": "bot", "allow": "read_file, delete_file"}]);
        let err = GgConfig::parse(&render(&form), "t").unwrap_err();
        let keys: Vec<&str> = err.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            ["capabilities.read-file.params.lineCap", "agents.bot.allow"]
        );
        assert!(err.problems[0].message.starts_with("\"abc\""), "{err}");
        assert!(
            err.problems[1].message.starts_with("\"delete_file\""),
            "{err}"
        );
    }

    #[test]
    fn typed_text_cannot_inject_toml() {
        let sneaky = "1 }\n[model]\nvision = false";
        let mut form = default_form();
        form["capabilities"]["read-file"]["lineCap"] = json!(sneaky);
        form["agents"] = json!([{"name": "a]\n[model", "allow": "read_file"}]);
        let text = render(&form);
        let table: Table = text.parse().unwrap();
        let line_cap = &table["capabilities"]["read-file"]["params"]["lineCap"];
        assert_eq!(line_cap.as_str(), Some(sneaky));
        assert!(table["agents"].get("a]\n[model").is_some(), "{text}");
        assert_eq!(table["model"]["vision"].as_bool(), Some(true));
        let err = GgConfig::parse(&text, "t").unwrap_err();
        assert_eq!(err.problems.len(), 1, "{err}");
        assert_eq!(literal("2.5"), "2.5");
        assert_eq!(literal("\"250\""), "\"250\"");
    }
}
