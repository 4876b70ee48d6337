//! Tool definitions in the shapes model APIs take, so the active tool set (after capabilities
//! and allowlists) can be handed to any of them: MCP's `tools/list` entries, OpenAI function
//! tools, Anthropic tools, and Gemini function declarations (whose schema dialect has no `$ref`,
//! no type unions and no `additionalProperties`, so schemas are rewritten for it).

use serde_json::{Map, Value, json};

use super::ToolDef;

/// A model API's tool-definition format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// MCP: `{name, description, inputSchema, outputSchema?, annotations}`.
    Mcp,
    /// OpenAI: `{type: "function", function: {name, description, parameters}}`.
    OpenAi,
    /// Anthropic: `{name, description, input_schema}`.
    Anthropic,
    /// Gemini: `{functionDeclarations: [{name, description, parameters}]}`.
    Gemini,
}

/// The tools in `format`.
pub fn export(tools: &[ToolDef], format: Format) -> Value {
    match format {
        Format::Mcp => Value::Array(
            tools
                .iter()
                .map(|t| {
                    let mut tool = json!({
                        "name": t.name,
                        "description": t.description,
                        "inputSchema": t.input_schema,
                    });
                    if let Some(output) = &t.output_schema {
                        tool["outputSchema"] = output.clone();
                    }
                    tool["annotations"] = json!({
                        "readOnlyHint": t.read_only,
                        "destructiveHint": !t.read_only && t.destructive,
                    });
                    tool
                })
                .collect(),
        ),
        Format::OpenAi => Value::Array(
            tools
                .iter()
                .map(|t| {
                    json!({
                        "type": "function",
                        "function": {
                            "name": t.name,
                            "description": t.description,
                            "parameters": plain_schema(&t.input_schema),
                        },
                    })
                })
                .collect(),
        ),
        Format::Anthropic => Value::Array(
            tools
                .iter()
                .map(|t| {
                    json!({
                        "name": t.name,
                        "description": t.description,
                        "input_schema": plain_schema(&t.input_schema),
                    })
                })
                .collect(),
        ),
        Format::Gemini => json!({
            "functionDeclarations": tools
                .iter()
                .map(|t| json!({
                    "name": t.name,
                    "description": t.description,
                    "parameters": gemini_schema(&t.input_schema),
                }))
                .collect::<Vec<_>>(),
        }),
    }
}

/// A schema without the `$schema` marker (the APIs want the object schema itself).
fn plain_schema(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
    }
    schema
}

/// A schema in Gemini's dialect: references inlined, `["T", "null"]` unions turned into
/// `T` with `nullable: true`, `anyOf` with one non-null branch collapsed, `const` written as a
/// one-value `enum`, and keywords it rejects (`$schema`, `definitions`, `additionalProperties`, `default`, `title`, `format`
/// other than its own) dropped.
fn gemini_schema(schema: &Value) -> Value {
    let definitions = schema
        .get("definitions")
        .or_else(|| schema.get("$defs"))
        .cloned()
        .unwrap_or(Value::Null);
    rewrite(schema, &definitions, 0)
}

fn rewrite(value: &Value, definitions: &Value, depth: usize) -> Value {
    let Value::Object(map) = value else {
        return value.clone();
    };
    if depth > 32 {
        return json!({"type": "object"});
    }
    if let Some(Value::String(reference)) = map.get("$ref") {
        let name = reference.rsplit('/').next().unwrap_or("");
        return match definitions.get(name) {
            Some(target) => rewrite(target, definitions, depth + 1),
            None => json!({"type": "object"}),
        };
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            let real: Vec<&Value> = branches
                .iter()
                .filter(|b| b.get("type") != Some(&json!("null")))
                .collect();
            let nullable = real.len() < branches.len();
            if real.len() == 1 {
                let mut out = rewrite(real[0], definitions, depth + 1);
                if let Some(description) = map.get("description") {
                    out["description"] = description.clone();
                }
                if nullable {
                    out["nullable"] = json!(true);
                }
                return out;
            }
        }
    }
    let mut out = Map::new();
    for (key, item) in map {
        match key.as_str() {
            "$schema"
            | "definitions"
            | "$defs"
            | "additionalProperties"
            | "default"
            | "title"
            | "examples" => {}
            "format" => {
                if matches!(
                    item.as_str(),
                    Some("int32" | "int64" | "float" | "double" | "enum" | "date-time")
                ) {
                    out.insert(key.clone(), item.clone());
                }
            }
            // Gemini has no `const`; a one-value enum says the same.
            "const" => {
                out.insert("enum".to_string(), json!([item]));
            }
            "type" => match item {
                Value::Array(types) => {
                    let real: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                    if let Some(first) = real.first() {
                        out.insert(key.clone(), (*first).clone());
                    }
                    if real.len() < types.len() {
                        out.insert("nullable".to_string(), json!(true));
                    }
                }
                other => {
                    out.insert(key.clone(), other.clone());
                }
            },
            "properties" => {
                let props: Map<String, Value> = item
                    .as_object()
                    .map(|p| {
                        p.iter()
                            .map(|(k, v)| (k.clone(), rewrite(v, definitions, depth + 1)))
                            .collect()
                    })
                    .unwrap_or_default();
                out.insert(key.clone(), Value::Object(props));
            }
            "items" => {
                out.insert(key.clone(), rewrite(item, definitions, depth + 1));
            }
            "anyOf" | "oneOf" | "allOf" => {
                let branches: Vec<Value> = item
                    .as_array()
                    .map(|b| {
                        b.iter()
                            .map(|v| rewrite(v, definitions, depth + 1))
                            .collect()
                    })
                    .unwrap_or_default();
                out.insert("anyOf".to_string(), Value::Array(branches));
            }
            _ => {
                out.insert(key.clone(), item.clone());
            }
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contains_key(value: &Value, key: &str) -> bool {
        match value {
            Value::Object(map) => {
                map.contains_key(key) || map.values().any(|v| contains_key(v, key))
            }
            Value::Array(items) => items.iter().any(|v| contains_key(v, key)),
            _ => false,
        }
    }

    #[test]
    fn gemini_schemas_have_no_references_unions_or_unknown_keywords() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "additionalProperties": false,
            "definitions": {"Spec": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
            "properties": {
                "limit": {"type": ["integer", "null"], "format": "uint64", "default": null},
                "files": {"type": "array", "items": {"$ref": "#/definitions/Spec"}},
                "one": {"allOf": [{"$ref": "#/definitions/Spec"}], "description": "d"},
            },
            "required": ["files"],
        });
        let out = gemini_schema(&schema);
        for key in [
            "$ref",
            "$schema",
            "definitions",
            "additionalProperties",
            "default",
            "allOf",
        ] {
            assert!(!contains_key(&out, key), "{key} left in {out:#}");
        }
        assert_eq!(
            out["properties"]["limit"],
            json!({"type": "integer", "nullable": true})
        );
        assert_eq!(
            out["properties"]["files"]["items"]["required"],
            json!(["path"])
        );
        assert_eq!(out["properties"]["one"]["description"], json!("d"));
    }
}
