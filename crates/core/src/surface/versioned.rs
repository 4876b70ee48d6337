//! Version tokens for the five specified profiles (`--versions`), around their own surfaces.
//!
//! Native reads and writes versions itself. The other profiles keep their specified texts
//! exactly; with versions on, this wrapper adds to them:
//!
//! - after every successful read of a file (and every write, edit or patch of one), a last text
//!   block `version: path vXXXXXXXXXXXX` (one line per file), the token of the file's content
//!   as [`crate::ops::version`] spells it;
//! - an optional `expected_version` argument on every tool that writes, edits or patches a file
//!   (on each item of coder's `files`). When the file no longer holds that version the call is
//!   refused as `stale` with what changed since, unless the call is a text replacement whose
//!   quote has the same single place in both contents: then it goes ahead on the current content
//!   (a rebase) and the answer says so.
//!
//! Hashes decide, never modification times, and each write's answer carries the new version, so
//! a caller's consecutive edits never trip over each other. The version is taken by reading the
//! file again right after the profile's call. For a read, the file is also hashed right before
//! the call, and a version is given only when the two agree: a file another process changed
//! while it was being read gets the line `version: PATH changed while it was read; read it
//! again for its version` instead, so no token ever names content the caller did not see. For a
//! write, a write by another process in the moment between the profile's write and that second
//! read is what the version then names (the profiles' own guards still compare contents when
//! they write).

use serde_json::{Map, Value, json};

use crate::access::Access;
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::version::{self, Versions};
use crate::profile::Profile;
use crate::surface::{CallContext, Content, Reload, Surface, ToolDef, ToolOutput};

/// What a tool does with the files it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Reads them: the answer gains their versions.
    Read,
    /// Writes, appends or patches them: `expected_version` guards it; the answer gains the new
    /// versions.
    Write,
    /// Replaces the quoted text in the argument named here: as [`Role::Write`], and a changed
    /// file whose quote still has the same single place is edited anyway (a rebase).
    Replace(&'static str),
}

/// Where a tool's arguments name its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Paths {
    /// One string argument.
    One(&'static str),
    /// One string argument, or an array argument of strings or `{path}` objects (reads only).
    OneOrMany(&'static str, &'static str),
    /// coder's `files`: objects with `path`, each with its own `expected_version`; relative to
    /// `base_dir` when given.
    Files,
}

/// The tools of `profile` that name files, and how.
fn spots(profile: Profile) -> &'static [(&'static str, Role, Paths)] {
    use Paths::{Files, One, OneOrMany};
    use Role::{Read, Replace, Write};
    match profile {
        Profile::Gg => &[
            ("read_file", Read, One("path")),
            ("write_file", Write, One("path")),
            ("edit_file", Replace("old_string"), One("path")),
        ],
        Profile::Coder => &[
            ("read-file", Read, OneOrMany("path", "paths")),
            ("update-file", Write, Files),
            ("create-file", Write, Files),
        ],
        Profile::Qwen => &[
            ("read_file", Read, One("path")),
            ("write_file", Write, One("file_path")),
            ("edit", Replace("old_string"), One("file_path")),
            ("notebook_edit", Write, One("notebook_path")),
        ],
        Profile::Picoclaw => &[
            ("read_file", Read, One("path")),
            ("write_file", Write, One("path")),
            ("edit_file", Replace("old_text"), One("path")),
            ("append_file", Write, One("path")),
        ],
        Profile::Sgpt => &[
            ("read_files", Read, OneOrMany("path", "paths")),
            ("replace", Write, One("path")),
            ("diff", Write, One("path")),
        ],
        Profile::Native => &[],
    }
}

const EXPECTED_VERSION: &str = "expected_version";

/// The schema of the `expected_version` argument.
fn expected_schema() -> Value {
    json!({
        "type": "string",
        "description": "The version your last read or write of this file gave (v and 12 hex \
                        digits). If the file holds something else now, nothing is written and \
                        the answer shows what changed; a replacement whose quoted text is \
                        unchanged and still unique applies anyway and says so."
    })
}

/// A profile's surface with version tokens (see the module documentation).
pub struct Versioned {
    inner: Box<dyn Surface>,
    profile: Profile,
    versions: Versions,
}

impl Versioned {
    /// `inner`, the surface of `profile`, with version tokens.
    pub fn new(inner: Box<dyn Surface>, profile: Profile) -> Self {
        Versioned {
            inner,
            profile,
            versions: Versions::default(),
        }
    }

    fn spot(&self, name: &str) -> Option<(Role, Paths)> {
        spots(self.profile)
            .iter()
            .find(|(tool, ..)| *tool == name)
            .map(|&(_, role, paths)| (role, paths))
    }
}

/// One file a call names: as given, the `base_dir` it is relative to, and the version the
/// caller expects it at.
struct Named {
    raw: String,
    base: Option<String>,
    expected: Option<String>,
}

/// The files `args` name, `expected_version` taken out of the arguments (the profile does not
/// know it).
fn take_named(args: &mut Value, paths: Paths) -> Vec<Named> {
    let Some(obj) = args.as_object_mut() else {
        return Vec::new();
    };
    let base = obj
        .get("base_dir")
        .and_then(Value::as_str)
        .map(String::from);
    let take = |o: &mut Map<String, Value>| match o.remove(EXPECTED_VERSION) {
        Some(Value::String(s)) => Some(s),
        Some(other) => Some(other.to_string()),
        None => None,
    };
    let mut out = Vec::new();
    match paths {
        Paths::One(key) => {
            let expected = take(obj);
            if let Some(raw) = obj.get(key).and_then(Value::as_str) {
                out.push(Named {
                    raw: raw.to_string(),
                    base,
                    expected,
                });
            }
        }
        Paths::OneOrMany(one, many) => {
            if let Some(raw) = obj.get(one).and_then(Value::as_str) {
                out.push(Named {
                    raw: raw.to_string(),
                    base: base.clone(),
                    expected: None,
                });
            }
            for item in obj
                .get(many)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let raw = item
                    .as_str()
                    .or_else(|| item.get("path").and_then(Value::as_str));
                if let Some(raw) = raw {
                    out.push(Named {
                        raw: raw.to_string(),
                        base: base.clone(),
                        expected: None,
                    });
                }
            }
        }
        Paths::Files => {
            for item in obj
                .get_mut("files")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                let Some(file) = item.as_object_mut() else {
                    continue;
                };
                let expected = take(file);
                if let Some(raw) = file.get("path").and_then(Value::as_str) {
                    out.push(Named {
                        raw: raw.to_string(),
                        base: base.clone(),
                        expected,
                    });
                }
            }
        }
    }
    out
}

/// `schema` with `expected_version` added where `paths` says the files are named.
fn with_expected(mut schema: Value, paths: Paths) -> Value {
    let add = |object: &mut Value| {
        if let Some(props) = object.get_mut("properties").and_then(Value::as_object_mut) {
            props.insert(EXPECTED_VERSION.to_string(), expected_schema());
        }
    };
    match paths {
        Paths::Files => {
            // The item schema: inline, or behind a `$ref` into the definitions.
            let item = schema
                .pointer("/properties/files/items/$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
                .map(String::from);
            match item {
                Some(pointer) => {
                    if let Some(def) = schema.pointer_mut(&pointer) {
                        add(def);
                    }
                }
                None => {
                    if let Some(def) = schema.pointer_mut("/properties/files/items") {
                        add(def);
                    }
                }
            }
        }
        _ => add(&mut schema),
    }
    schema
}

impl Versioned {
    /// The file `named` names, resolved, and what it holds; `None` when it cannot be resolved
    /// or read (the profile's own call then says why, in its own words).
    fn current(&self, access: &Access, named: &Named) -> Option<(String, Option<Vec<u8>>)> {
        let target = match &named.base {
            Some(base) => access.resolve_from(&named.raw, &access.resolve(base).ok()?),
            None => access.resolve(&named.raw),
        }
        .ok()?;
        match access.read_all(&target) {
            Ok((bytes, _)) => Some((target.shown, Some(bytes))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some((target.shown, None)),
            Err(_) => None,
        }
    }

    /// Checks each named file against its `expected_version`: `Ok` with the files the call
    /// rebases (changed, but the quote in `quote` has the same single place), or a `stale`
    /// error.
    fn check(
        &self,
        access: &Access,
        named: &[Named],
        role: Role,
        args: &Value,
    ) -> Result<Vec<String>> {
        let mut rebased = Vec::new();
        for file in named {
            let Some(expected) = &file.expected else {
                continue;
            };
            if !version::is_token(expected) {
                return Err(ToolError::invalid(format!(
                    "expected_version {expected:?} is not a version token (v and 12 hex digits, \
                     as the last `version:` line of a read shows); pass the version of your last \
                     read of {}, or leave it out",
                    file.raw
                )));
            }
            let Some((shown, bytes)) = self.current(access, file) else {
                continue;
            };
            let Some(now_bytes) = bytes else {
                return Err(ToolError::new(
                    ErrorKind::Stale,
                    format!(
                        "{shown} was at {expected} and no longer exists; nothing was written. \
                         List its folder to see what is there now, and drop expected_version to \
                         create it anew."
                    ),
                ));
            };
            let now = self.versions.keep(&now_bytes);
            if &now == expected {
                continue;
            }
            let Some(then) = self.versions.content(expected) else {
                return Err(ToolError::new(
                    ErrorKind::Stale,
                    format!(
                        "{shown} is at {now}, not {expected}, and this session no longer holds \
                         {expected}'s content to compare; nothing was written. Read it again and \
                         redo the change from what it holds now, with expected_version \"{now}\"."
                    ),
                ));
            };
            let quote = match role {
                Role::Replace(key) => args.get(key).and_then(Value::as_str),
                _ => None,
            };
            if let Some(quote) = quote
                && version::quote_rebases(&then, &now_bytes, quote)
            {
                rebased.push(format!(
                    "rebased: {shown} changed since {expected}, outside the edited region; the \
                     edit applied to {now}"
                ));
                continue;
            }
            return Err(ToolError::new(
                ErrorKind::Stale,
                format!(
                    "{shown} changed since {expected} (now {now}); nothing was written. What \
                     changed:\n{}\nRedo the change against the current content, with \
                     expected_version \"{now}\".",
                    crate::session::diff(&then, &now_bytes)
                ),
            ));
        }
        Ok(rebased)
    }

    /// The versions of the named files as they are now (`None` for one that cannot be read),
    /// taken before a read to compare with after it.
    fn tokens(&self, access: &Access, named: &[Named]) -> Vec<Option<String>> {
        named
            .iter()
            .map(|file| match self.current(access, file)? {
                (_, Some(bytes)) => Some(version::of(&bytes)),
                (_, None) => None,
            })
            .collect()
    }

    /// The `version:` lines of the named files as they are now. With `before` (the tokens
    /// taken before a read), a file whose version is not the one it had then gets no token: the
    /// read may have seen either content.
    fn version_lines(
        &self,
        access: &Access,
        named: &[Named],
        before: Option<&[Option<String>]>,
    ) -> Vec<String> {
        named
            .iter()
            .enumerate()
            .filter_map(|(at, file)| match self.current(access, file)? {
                (shown, Some(bytes)) => {
                    let token = self.versions.keep(&bytes);
                    let seen =
                        before.is_none_or(|b| b.get(at).and_then(Option::as_ref) == Some(&token));
                    Some(if seen {
                        format!("version: {shown} {token}")
                    } else {
                        format!(
                            "version: {shown} changed while it was read; read it again for its \
                             version"
                        )
                    })
                }
                (_, None) => None,
            })
            .collect()
    }
}

impl Surface for Versioned {
    fn tools(&self) -> Vec<ToolDef> {
        let mut tools = self.inner.tools();
        for tool in &mut tools {
            match self.spot(tool.name) {
                Some((Role::Read, _)) => {
                    tool.description.push_str(
                        " The answer ends with each file's version (version: PATH vXXXXXXXXXXXX).",
                    );
                }
                Some((_, paths)) => {
                    tool.input_schema = with_expected(tool.input_schema.take(), paths);
                    tool.description.push_str(
                        " expected_version (from a read or write) refuses the call if the file \
                         changed since; the answer ends with the new version.",
                    );
                }
                None => {}
            }
        }
        tools
    }

    fn call(
        &self,
        access: &Access,
        name: &str,
        mut args: Value,
        ctx: &CallContext,
    ) -> Option<ToolOutput> {
        let Some((role, paths)) = self.spot(name) else {
            return self.inner.call(access, name, args, ctx);
        };
        let named = take_named(&mut args, paths);
        let rebased = match self.check(access, &named, role, &args) {
            Ok(rebased) => rebased,
            Err(err) => return Some(ToolOutput::error(&err)),
        };
        let before = (role == Role::Read).then(|| self.tokens(access, &named));
        let mut output = self.inner.call(access, name, args, ctx)?;
        if output.is_error {
            return Some(output);
        }
        let mut lines = rebased;
        lines.extend(self.version_lines(access, &named, before.as_deref()));
        if !lines.is_empty() {
            output.content.push(Content::Text(lines.join("\n")));
        }
        Some(output)
    }

    fn prompt(&self) -> String {
        let mut text = self.inner.prompt();
        // Only where a tool the versions concern is offered (not gg's code arm, not an agent
        // without them).
        let offered = self.inner.tools();
        if !offered.iter().any(|t| self.spot(t.name).is_some()) {
            return text;
        }
        text.push_str(
            "\n\nVersions: reads and writes end with `version: PATH vXXXXXXXXXXXX`. Pass it as \
             expected_version to the next write or edit of that file: if the file changed \
             meanwhile nothing is written and the answer shows what changed.\n",
        );
        text
    }

    fn opening(&self, access: &Access) -> Option<String> {
        self.inner.opening(access)
    }

    fn file_argument(&self, name: &str) -> Option<&'static str> {
        self.inner.file_argument(name)
    }

    fn reload(&self, path: &std::path::Path) -> Reload {
        self.inner.reload(path)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // the test plays the other process, writing beside fsgate
mod tests {
    use super::*;

    /// A profile surface whose `read_file` answers `answer` and, while it reads, lets another
    /// writer put `meanwhile` into the file (when given).
    struct Racing {
        path: std::path::PathBuf,
        meanwhile: Option<&'static str>,
    }

    impl Surface for Racing {
        fn tools(&self) -> Vec<ToolDef> {
            Vec::new()
        }

        fn call(&self, _: &Access, _: &str, _: Value, _: &CallContext) -> Option<ToolOutput> {
            let seen = std::fs::read_to_string(&self.path).unwrap();
            if let Some(text) = self.meanwhile {
                std::fs::write(&self.path, text).unwrap();
            }
            Some(ToolOutput::text(seen))
        }

        fn prompt(&self) -> String {
            String::new()
        }
    }

    fn read_through(meanwhile: Option<&'static str>) -> (String, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "seen by the read\n").unwrap();
        let access = Access::new(dir.path()).unwrap();
        let surface = Versioned::new(
            Box::new(Racing {
                path: path.clone(),
                meanwhile,
            }),
            Profile::Gg,
        );
        let out = surface
            .call(
                &access,
                "read_file",
                json!({"path": "a.txt"}),
                &CallContext::default(),
            )
            .unwrap();
        let now = std::fs::read(&path).unwrap();
        (out.text_content(), version::of(&now))
    }

    #[test]
    fn a_read_names_the_version_of_the_content_it_saw() {
        let (text, now) = read_through(None);
        assert!(text.starts_with("seen by the read\n"), "{text}");
        assert_eq!(
            text.lines().last().unwrap(),
            format!("version: a.txt {now}"),
            "{text}"
        );
        assert_eq!(now, version::of(b"seen by the read\n"));
    }

    #[test]
    fn a_file_changed_while_it_was_read_gets_no_version_the_read_did_not_see() {
        let (text, now) = read_through(Some("written by another process\n"));
        assert!(text.starts_with("seen by the read\n"), "{text}");
        assert!(
            !text.contains(&now),
            "the version of content the read never showed was given:\n{text}"
        );
        assert!(
            !text.contains(&version::of(b"seen by the read\n")),
            "a version of content no longer there was given:\n{text}"
        );
        assert_eq!(
            text.lines().last().unwrap(),
            "version: a.txt changed while it was read; read it again for its version",
            "{text}"
        );
    }
}
