//! The configuration: capabilities, agents' allowlists, read mode and lineCap, vision; and what
//! the tools' schemas and the system prompt say under each.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use crate::gg_support;

use fsgate_core::{GgConfig, Options, Workspace};
use gg_support::{Fx, parse};
use serde_json::json;

fn names(fx: &Fx) -> Vec<&'static str> {
    fx.ws.tools().iter().map(|t| t.name).collect()
}

fn refusal(text: &str) -> String {
    match GgConfig::parse(text, "gg.toml") {
        Ok(c) => panic!("accepted: {c:?}"),
        Err(e) => e.to_string(),
    }
}

fn limit_description(fx: &Fx) -> String {
    let tools = fx.ws.tools();
    let read = tools.iter().find(|t| t.name == "read_file").unwrap();
    read.input_schema["properties"]["limit"]["description"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The `## Reading Files` section of the prompt, up to the next section.
fn reading_section(prompt: &str) -> Option<String> {
    let start = prompt.find("## Reading Files")?;
    let rest = &prompt[start..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    Some(rest[..end].trim_end().to_string())
}

// ---------------------------------------------------------------------------------------------
// Defaults

#[test]
fn without_a_configuration_all_five_capabilities_are_enabled() {
    let fx = Fx::new();
    let tools = fx.ws.tools();
    let summary: Vec<(&str, bool)> = tools.iter().map(|t| (t.name, t.read_only)).collect();
    assert_eq!(
        summary,
        [
            ("read_file", true),
            ("write_file", false),
            ("edit_file", false),
            ("list_dir", true),
            ("tree", true),
            ("search", true),
        ]
    );
    for t in &tools {
        assert_eq!(t.input_schema["type"], "object", "{}", t.name);
        assert_eq!(t.input_schema["additionalProperties"], false, "{}", t.name);
    }
}

#[test]
fn an_empty_configuration_file_is_the_default_default_cap_2000_with_vision() {
    let config = GgConfig::parse("", "empty.toml").unwrap();
    assert_eq!(config, GgConfig::default());
    let fx = Fx::with(|o| o.profile = config.into());
    assert_eq!(names(&fx).len(), 6);
    assert!(limit_description(&fx).contains("at most 2000 lines (the cap)"));
    let prompt = fx.ws.prompt();
    assert!(prompt.contains("read_file returns at most 2000 lines per call"));
    assert!(prompt.contains("read_file shows PNG, JPEG, GIF and WebP images as images."));
}

#[test]
fn the_default_prompt_describes_every_group() {
    let fx = Fx::new();
    insta::assert_snapshot!(fx.ws.prompt(), @r"
    # Filesystem tools

    Paths are relative to the working directory, or absolute.

    ## Reading Files

    read_file returns at most 2000 lines per call unless you pass limit. To read further, pass offset (the 1-based line to start from) and limit; a result that shows only part of a file ends with a line like [showing lines 1-2000 of N; continue with offset: 2001].
    read_file shows PNG, JPEG, GIF and WebP images as images.

    ## Changing Files

    write_file creates a file or replaces its whole content.
    edit_file replaces one exact, unique occurrence of old_string. If it is not found, re-read the file; if it occurs several times, add surrounding lines.

    ## Listing Directories

    list_dir lists one directory's entries; tree shows the tree beneath a directory to a depth, leaving out what ignore files exclude.

    ## Searching

    search finds lines matching a Rust regular expression and returns them as path:line:text. A list as long as its limit may have been cut: narrow the query or the path.
    ");
}

// ---------------------------------------------------------------------------------------------
// Capabilities and allowlists

#[test]
fn a_disabled_capability_is_absent_from_the_tools_and_refused_when_called() {
    let fx = Fx::config("[capabilities.write-file]\nenabled = false\n");
    assert_eq!(
        names(&fx),
        ["read_file", "edit_file", "list_dir", "tree", "search"]
    );
    let out = fx.call("write_file", json!({"path": "a.txt", "content": "x"}));
    assert!(out.is_error);
    assert_eq!(
        out.text_content(),
        "denied: write_file is not enabled in this configuration; the tools offered are \
         read_file, edit_file, list_dir, tree, search"
    );
    assert!(!fx.path("a.txt").exists());
    assert!(!fx.ws.prompt().contains("write_file"));
}

#[test]
fn disabling_list_dir_withdraws_both_its_calls() {
    let fx = Fx::config("[capabilities.list-dir]\nenabled = false\n");
    assert_eq!(
        names(&fx),
        ["read_file", "write_file", "edit_file", "search"]
    );
    assert!(fx.call("list_dir", json!({})).is_error);
    assert!(fx.call("tree", json!({})).is_error);
    assert!(!fx.ws.prompt().contains("## Listing Directories"));
}

#[test]
fn a_disabled_read_file_needs_no_line_cap_and_is_refused() {
    let fx = Fx::config("[capabilities.read-file]\nenabled = false\n");
    fx.write("a.txt", "x");
    assert_eq!(
        names(&fx),
        ["write_file", "edit_file", "list_dir", "tree", "search"]
    );
    let out = fx.call("read_file", json!({"path": "a.txt"}));
    assert!(out.is_error);
    assert!(
        out.text_content()
            .starts_with("denied: read_file is not enabled")
    );
    assert!(!fx.ws.prompt().contains("## Reading Files"));
}

#[test]
fn with_every_capability_disabled_no_tool_is_offered() {
    let fx = Fx::config(
        "[capabilities.read-file]\nenabled = false\n[capabilities.write-file]\nenabled = \
         false\n[capabilities.edit-file]\nenabled = false\n[capabilities.list-dir]\nenabled = \
         false\n[capabilities.search]\nenabled = false\n",
    );
    assert!(fx.ws.tools().is_empty());
    assert_eq!(
        fx.err("search", json!({"query": "x"})),
        "denied: search is not enabled in this configuration; the tools offered are none"
    );
}

const AGENTS: &str = "[agents.reviewer]\nallow = [\"read_file\", \"tree\", \"search\"]\n\
                      [agents.writer]\nallow = [\"write_file\", \"read_file\"]\n\
                      [capabilities.write-file]\nenabled = false\n";

#[test]
fn an_agent_is_given_only_its_allowlist() {
    let config = parse(AGENTS);
    let fx = Fx::with(|o| {
        o.profile = config.into();
        o.agent = Some("reviewer".to_string());
    });
    assert_eq!(names(&fx), ["read_file", "tree", "search"]);
    let out = fx.call(
        "edit_file",
        json!({"path": "a", "old_string": "a", "new_string": "b"}),
    );
    assert!(out.is_error);
    assert_eq!(
        out.text_content(),
        "denied: edit_file is not on the allowlist of agent \"reviewer\" ([agents.reviewer] \
         allow = [\"read_file\", \"tree\", \"search\"]), so this agent cannot call it; the \
         tools offered are read_file, tree, search"
    );
    assert!(fx.call("list_dir", json!({})).is_error);
}

#[test]
fn an_allowlist_cannot_give_a_call_of_a_disabled_capability() {
    let config = parse(AGENTS);
    let fx = Fx::with(|o| {
        o.profile = config.into();
        o.agent = Some("writer".to_string());
    });
    assert_eq!(names(&fx), ["read_file"]);
    // On the allowlist but switched off: the capability is what refuses.
    assert_eq!(
        fx.err("write_file", json!({"path": "a", "content": ""})),
        "denied: write_file is not enabled in this configuration; the tools offered are read_file"
    );
    // Off the allowlist: the agent's allowlist is named.
    assert!(
        fx.err("search", json!({"query": "x"}))
            .starts_with("denied: search is not on the allowlist of agent \"writer\"")
    );
}

#[test]
fn without_an_agent_the_allowlists_do_not_apply() {
    let fx = Fx::config(AGENTS);
    assert_eq!(
        names(&fx),
        ["read_file", "edit_file", "list_dir", "tree", "search"]
    );
}

#[test]
fn an_unknown_agent_refuses_to_open_naming_the_agents() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = Options::new(dir.path());
    options.profile = parse(AGENTS).into();
    options.agent = Some("reviwer".to_string());
    let err = Workspace::open(options).err().unwrap();
    assert_eq!(
        err.to_string(),
        "agent \"reviwer\" is not in the configuration; its agents are reviewer, writer"
    );
}

#[test]
fn a_tool_the_profile_does_not_have_is_an_unknown_tool() {
    let fx = Fx::new();
    let err = fx
        .ws
        .call("delete_file", json!({"path": "a"}))
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "unknown tool \"delete_file\"; the tools are read_file, write_file, edit_file, list_dir, \
         tree, search"
    );
}

// ---------------------------------------------------------------------------------------------
// Read mode and lineCap

#[test]
fn an_absent_line_cap_refuses_under_either_mode() {
    for mode in ["unlimited", "default-cap"] {
        let text = format!("[capabilities.read-file]\nimplementation = \"{mode}\"\n");
        assert_eq!(
            refusal(&text),
            "configuration gg.toml refused: 1 problem\n  - capabilities.read-file.params.lineCap: \
             missing; read-file needs params = { lineCap = N } (a line count of 1 or more) under \
             either mode"
        );
    }
    // params present without lineCap is absent too.
    let err = refusal("[capabilities.read-file]\nimplementation = \"unlimited\"\nparams = {}\n");
    assert!(
        err.contains("capabilities.read-file.params.lineCap: missing"),
        "{err}"
    );
}

#[test]
fn a_line_cap_that_is_not_a_line_count_of_one_or_more_refuses() {
    for (bad, shown) in [
        ("0", "0"),
        ("-3", "-3"),
        ("2.5", "2.5"),
        ("\"250\"", "\"250\""),
        ("true", "true"),
    ] {
        let text = format!(
            "[capabilities.read-file]\nimplementation = \"default-cap\"\nparams = {{ lineCap = \
             {bad} }}\n"
        );
        assert_eq!(
            refusal(&text),
            format!(
                "configuration gg.toml refused: 1 problem\n  - \
                 capabilities.read-file.params.lineCap: {shown} is not a line count; lineCap \
                 must be a whole number of lines, 1 or more"
            ),
            "lineCap = {bad}"
        );
    }
}

#[test]
fn an_unknown_implementation_refuses_naming_the_two_modes() {
    assert_eq!(
        refusal(
            "[capabilities.read-file]\nimplementation = \"capped\"\nparams = { lineCap = 100 }\n"
        ),
        "configuration gg.toml refused: 1 problem\n  - capabilities.read-file.implementation: \
         \"capped\" is not a read mode; the two modes are \"unlimited\" and \"default-cap\""
    );
}

#[test]
fn one_refusal_names_every_bad_value() {
    let err = refusal(
        r#"
theme = "dark"
[capabilities.read-file]
implementation = "paged"
params = { lineCap = 0, window = 3 }
[capabilities.serch]
enabled = true
[capabilities.tree]
enabled = false
[capabilities.search]
enabled = "no"
[agents.bot]
allow = ["read_file", "rm"]
[model]
vision = "yes"
colour = 1
"#,
    );
    insta::assert_snapshot!(err, @r#"
    configuration gg.toml refused: 10 problems
      - theme: unknown key; the keys here are "arm", "capabilities", "agents", "model", "access", "code"
      - capabilities.read-file.implementation: "paged" is not a read mode; the two modes are "unlimited" and "default-cap"
      - capabilities.read-file.params.window: unknown key; the keys here are "lineCap", "countBudgetBytes", "countBudgetMs"
      - capabilities.read-file.params.lineCap: 0 is not a line count; lineCap must be a whole number of lines, 1 or more
      - capabilities.serch: unknown capability; the capabilities are "read-file", "write-file", "edit-file", "list-dir", "search"
      - capabilities.tree: unknown capability; the capabilities are "read-file", "write-file", "edit-file", "list-dir", "search"
      - capabilities.search.enabled: must be true or false, not "no"
      - agents.bot.allow: "rm" is not a tool; the tools are "read_file", "write_file", "edit_file", "list_dir", "tree", "search"
      - model.colour: unknown key; the keys here are "vision"
      - model.vision: must be true or false, not "yes"
    "#);
}

#[test]
fn the_line_cap_is_read_under_both_modes() {
    let capped = parse(
        "[capabilities.read-file]\nimplementation = \"default-cap\"\nparams = { lineCap = 250 }\n",
    );
    let unlimited = parse(
        "[capabilities.read-file]\nimplementation = \"unlimited\"\nparams = { lineCap = 250 }\n",
    );
    assert_eq!(capped.line_cap, 250);
    assert_eq!(unlimited.line_cap, 250);
}

#[test]
fn the_limit_schema_states_the_cap_with_its_number_under_default_cap() {
    let fx = Fx::config(
        "[capabilities.read-file]\nimplementation = \"default-cap\"\nparams = { lineCap = 250 }\n",
    );
    assert_eq!(
        limit_description(&fx),
        "How many lines to return. Left out, a call returns at most 250 lines (the cap) from \
         offset; a larger value reads past the cap."
    );
    let tools = fx.ws.tools();
    let read = &tools[0];
    assert_eq!(read.input_schema["required"], json!(["path"]));
    assert!(read.input_schema["properties"]["offset"].is_object());
}

#[test]
fn the_limit_schema_states_the_end_of_the_file_under_unlimited() {
    let fx = Fx::config(
        "[capabilities.read-file]\nimplementation = \"unlimited\"\nparams = { lineCap = 250 }\n",
    );
    assert_eq!(
        limit_description(&fx),
        "How many lines to return. Left out, a call returns the rest of the file, from offset to \
         its end."
    );
    let tools = fx.ws.tools();
    assert!(tools[0].input_schema["properties"]["offset"].is_object());
    assert!(
        !tools[0].description.contains("250"),
        "{}",
        tools[0].description
    );
}

#[test]
fn the_prompt_states_the_cap_only_under_default_cap_with_the_line_cap() {
    let capped = Fx::config(
        "[capabilities.read-file]\nimplementation = \"default-cap\"\nparams = { lineCap = 250 }\n",
    );
    insta::assert_snapshot!(reading_section(&capped.ws.prompt()).unwrap(), @r"
    ## Reading Files

    read_file returns at most 250 lines per call unless you pass limit. To read further, pass offset (the 1-based line to start from) and limit; a result that shows only part of a file ends with a line like [showing lines 1-250 of N; continue with offset: 251].
    read_file shows PNG, JPEG, GIF and WebP images as images.
    ");
    let unlimited = Fx::config(
        "[capabilities.read-file]\nimplementation = \"unlimited\"\nparams = { lineCap = 250 }\n",
    );
    let prompt = unlimited.ws.prompt();
    assert!(!prompt.contains("250"), "{prompt}");
    insta::assert_snapshot!(reading_section(&prompt).unwrap(), @r"
    ## Reading Files

    read_file returns the whole file, or from offset to its end, unless you pass limit. offset is the 1-based line to start from; a result that shows only part of a file ends with a line saying which lines it shows and where to continue.
    read_file shows PNG, JPEG, GIF and WebP images as images.
    ");
}

#[test]
fn the_prompt_says_reading_images_is_unsupported_when_vision_is_off() {
    let by_config = Fx::config("[model]\nvision = false\n");
    let by_option = Fx::with(|o| o.no_vision = true);
    for fx in [&by_config, &by_option] {
        let section = reading_section(&fx.ws.prompt()).unwrap();
        assert!(
            section.ends_with(
                "Reading images is unsupported: read_file describes an image file (its format, \
                 size and dimensions) instead of showing it."
            ),
            "{section}"
        );
        assert!(!section.contains("as images."));
        let read = &fx.ws.tools()[0];
        assert!(read.description.contains("this model cannot see images"));
    }
}

#[test]
fn the_prompt_says_nothing_about_images_without_read_file() {
    let fx = Fx::config("[model]\nvision = false\n[capabilities.read-file]\nenabled = false\n");
    let prompt = fx.ws.prompt();
    assert!(!prompt.contains("image"), "{prompt}");
}

#[test]
fn the_unlimited_mode_reads_through_the_workspace_to_the_end() {
    let fx = Fx::config(
        "[capabilities.read-file]\nimplementation = \"unlimited\"\nparams = { lineCap = 1 }\n",
    );
    fx.write("f.txt", "a\nb\nc\n");
    assert_eq!(fx.ok("read_file", json!({"path": "f.txt"})), "a\nb\nc\n");
}
