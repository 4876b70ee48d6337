#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! The sgpt profile's tool list: names, the auto/review split as read-only and destructive
//! annotations, schemas, the prompt, and the configuration file.

use crate::sgpt_support;

use fsgate_core::SgptConfig;
use serde_json::json;
use sgpt_support::Sx;

#[test]
fn auto_tools_are_read_only_and_review_tools_destructive() {
    let sx = Sx::config("[agent]\ncommand = [\"true\"]\n[lore]\nlibraries = [\"kb\"]\n");
    let tools = sx.ws.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        vec![
            "read_files",
            "search_lores",
            "exec_shell",
            "diff",
            "replace",
            "agent"
        ]
    );
    for tool in &tools {
        let auto = matches!(tool.name, "read_files" | "search_lores");
        assert_eq!(tool.read_only, auto, "{}", tool.name);
        assert_eq!(tool.destructive, !auto, "{}", tool.name);
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        assert_eq!(tool.input_schema["additionalProperties"], false);
        assert_eq!(tool.output_schema.as_ref().unwrap()["type"], "object");
        assert!(!tool.description.is_empty());
    }
}

#[test]
fn descriptions_and_prompt_state_the_configured_limits() {
    let sx = Sx::config(
        "[exec_shell]\ntimeout_secs = 45\noutput_cap_chars = 5000\n[read_files]\nbudget_bytes = 777\n\
         [lore]\nlibraries = [\"kb\"]\n",
    );
    let tools = sx.ws.tools();
    let shell = tools.iter().find(|t| t.name == "exec_shell").unwrap();
    assert!(
        shell.description.contains("after 45 s"),
        "{}",
        shell.description
    );
    assert!(shell.description.contains("over 5000 characters"));
    let read = tools.iter().find(|t| t.name == "read_files").unwrap();
    assert!(read.description.contains("at most 777 bytes"));
    let lore = tools.iter().find(|t| t.name == "search_lores").unwrap();
    assert!(
        lore.description.contains("Libraries: kb."),
        "{}",
        lore.description
    );
    let prompt = sx.ws.prompt();
    assert!(prompt.contains("killed after 45 s"), "{prompt}");
    assert!(!prompt.contains("agent {"));
}

#[test]
fn tools_that_cannot_work_are_not_offered() {
    // No lore library, no sub-agent command: neither search_lores nor agent is listed or
    // promised, and a call to either says what to configure.
    let sx = Sx::new();
    let names: Vec<&str> = sx.ws.tools().iter().map(|t| t.name).collect();
    assert_eq!(names, ["read_files", "exec_shell", "diff", "replace"]);
    let prompt = sx.ws.prompt();
    assert!(!prompt.contains("search_lores"), "{prompt}");
    assert!(!prompt.contains("- agent"), "{prompt}");
    let text = sx.err("search_lores", json!({"query": "x"}));
    assert!(text.contains("[lore] libraries"), "{text}");

    let sx = Sx::config("[lore]\nlibraries = [\"kb\"]\n");
    let names: Vec<&str> = sx.ws.tools().iter().map(|t| t.name).collect();
    assert!(names.contains(&"search_lores") && !names.contains(&"agent"));
    assert!(sx.ws.prompt().contains("- search_lores {query"));
}

#[test]
fn an_unknown_tool_is_not_a_tool_result() {
    let sx = Sx::new();
    let err = sx.ws.call("read_file", json!({})).unwrap_err();
    assert!(err.available.contains(&"read_files".to_string()));
}

#[test]
fn the_configuration_file_loads_and_refusals_list_every_problem() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("sgpt.toml");
    std::fs::write(
        &good,
        "artifact_dir = \"logs\"\n[exec_shell]\ntimeout_secs = 5\n[agent]\ncommand = [\"a\", \"{prompt}\"]\n",
    )
    .unwrap();
    let config = SgptConfig::load(&good).unwrap();
    assert_eq!(config.shell_timeout, std::time::Duration::from_secs(5));
    assert_eq!(config.agent.unwrap().command, vec!["a", "{prompt}"]);

    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[exec_shell]\ntimeout_secs = \"soon\"\nmax_artifact_bytes = -1\n[lore]\nlibrary = []\n\
         [agent]\ncommand = []\n",
    )
    .unwrap();
    let err = SgptConfig::load(&bad).unwrap_err();
    let keys: Vec<&str> = err.problems.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(
        keys,
        vec![
            "exec_shell.timeout_secs",
            "exec_shell.max_artifact_bytes",
            "lore.library",
            "agent.command"
        ],
        "{err}"
    );
    let missing = SgptConfig::load(&dir.path().join("none.toml")).unwrap_err();
    assert!(missing.to_string().contains("cannot read the file"));
}
