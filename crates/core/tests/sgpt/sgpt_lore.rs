#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! The sgpt `search_lores` tool: a case-insensitive regex over the lore libraries, ranked by
//! field (title, labels, description, content) then by hit count.

use crate::sgpt_support;

use std::path::PathBuf;

use serde_json::{Value, json};
use sgpt_support::Sx;

fn library() -> Sx {
    let sx = Sx::with(|c| c.lore_libraries = vec![PathBuf::from("lore"), PathBuf::from("more")]);
    sx.write(
        "lore/deploy.md",
        "---\ntitle: Deploying to Kubernetes\ndescription: How releases reach production\n\
         labels: [ops, release]\n---\n# Steps\n\nRun the pipeline.\nCheck the rollout.\n",
    );
    sx.write(
        "lore/oncall.md",
        "---\ntitle: On-call handbook\ndescription: Paging and escalation\nlabels: [kubernetes, ops]\n---\n\
         Pages come from alertmanager.\n",
    );
    sx.write(
        "lore/cluster.md",
        "---\ntitle: Cluster notes\ndescription: Our Kubernetes clusters and their quirks\n\
         labels: [infra]\n---\nThree clusters.\n",
    );
    sx.write(
        "more/sub/debug.md",
        "---\ntitle: Debugging pods\ndescription: Tips\nlabels: infra, howto\n---\n\
         Use kubectl logs.\nkubernetes events help.\nAsk in #kubernetes.\n",
    );
    sx.write(
        "more/one-hit.md",
        "---\ntitle: Misc\n---\nA single kubernetes mention.\n",
    );
    sx.write("more/readme.txt", "kubernetes kubernetes kubernetes\n");
    sx.write(
        "more/.hidden/secret.md",
        "---\ntitle: Kubernetes secret\n---\n",
    );
    sx
}

fn titles(result: &Value) -> Vec<String> {
    result["lores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["title"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn results_rank_title_then_labels_then_description_then_content_then_hit_count() {
    let sx = library();
    let result = sx.ok("search_lores", json!({"query": "KUBERNETES"}));
    assert_eq!(
        titles(&result),
        vec![
            "Deploying to Kubernetes",
            "On-call handbook",
            "Cluster notes",
            "Debugging pods",
            "Misc",
        ]
    );
    assert_eq!(result["total_matches"], 5);
    let lores = result["lores"].as_array().unwrap();
    assert_eq!(lores[0]["matched_in"], json!(["title"]));
    assert_eq!(lores[1]["matched_in"], json!(["labels"]));
    assert_eq!(lores[2]["matched_in"], json!(["description"]));
    assert_eq!(lores[3]["matched_in"], json!(["content"]));
    assert_eq!(lores[3]["hits"], 2);
    assert_eq!(lores[4]["hits"], 1);
}

#[test]
fn each_result_has_title_description_labels_snippets_and_a_readable_path() {
    let sx = library();
    let result = sx.ok(
        "search_lores",
        json!({"query": "kube(rnetes|ctl)", "top_n": 1}),
    );
    let result_all = sx.ok("search_lores", json!({"query": "kube(rnetes|ctl)"}));
    assert_eq!(result["lores"].as_array().unwrap().len(), 1);
    assert_eq!(result["total_matches"], 5);
    let debug = result_all["lores"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["title"] == "Debugging pods")
        .unwrap()
        .clone();
    assert_eq!(
        debug,
        json!({
            "title": "Debugging pods",
            "description": "Tips",
            "labels": ["infra", "howto"],
            "path": "more/sub/debug.md",
            "matched_in": ["content"],
            "hits": 3,
            "snippets": [
                {"line": 6, "text": "Use kubectl logs."},
                {"line": 7, "text": "kubernetes events help."},
                {"line": 8, "text": "Ask in #kubernetes."},
            ],
        })
    );
    let read = sx.ok("read_files", json!({"paths": [debug["path"]]}));
    assert!(
        read["files"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Use kubectl logs.")
    );
}

#[test]
fn more_hits_rank_higher_within_a_field() {
    let sx = Sx::with(|c| c.lore_libraries = vec![PathBuf::from("l")]);
    sx.write("l/a.md", "---\ntitle: A\n---\nredis\n");
    sx.write("l/b.md", "---\ntitle: B\n---\nredis redis\nand redis\n");
    sx.write("l/c.md", "no front matter, redis twice: Redis\n");
    let result = sx.ok("search_lores", json!({"query": "redis"}));
    assert_eq!(titles(&result), vec!["B", "c", "A"]);
    // Equal rank: path order.
    let result = sx.ok("search_lores", json!({"query": "^(redis|no)"}));
    assert_eq!(titles(&result), vec!["A", "B", "c"]);
}

#[test]
fn a_bad_query_or_no_library_is_refused_and_a_missing_library_warned() {
    let sx = library();
    let text = sx.err("search_lores", json!({"query": "(unclosed"}));
    assert!(
        text.starts_with("invalid-argument: query is not a valid regular expression"),
        "{text}"
    );
    let text = sx.err("search_lores", json!({"query": "x", "top_n": 0}));
    assert!(text.contains("top_n 0"), "{text}");

    let sx = Sx::new();
    let text = sx.err("search_lores", json!({"query": "x"}));
    assert!(
        text.starts_with("denied: no lore library is configured"),
        "{text}"
    );

    let sx = Sx::with(|c| {
        c.lore_libraries = vec![
            PathBuf::from("gone"),
            PathBuf::from("/etc"),
            PathBuf::from("l"),
        ];
    });
    sx.write("l/a.md", "x\n");
    let result = sx.ok("search_lores", json!({"query": "x"}));
    assert_eq!(titles(&result), vec!["a"]);
    let warnings = result["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .contains("gone was not searched: not-found")
    );
    assert!(
        warnings[1]
            .as_str()
            .unwrap()
            .contains("/etc was not searched: outside-root")
    );
}
