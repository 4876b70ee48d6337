//! The coder functions' request and response shapes (the iii coder worker's API reference), as Rust types.
//! Requests deserialise from the call's arguments; responses serialise to the structured
//! result; both generate the tools' JSON schemas (draft-07, as the coder worker publishes them).

#![allow(missing_docs)] // field docs below are the schema descriptions; not every one needs one

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A structured error: a stable code for branching and a message with the corrective call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WireError {
    /// Stable error code, e.g. "C211".
    pub code: String,
    /// The problem, the actual values, and the corrective next call.
    pub message: String,
}

fn default_dot() -> String {
    ".".to_string()
}

fn default_true() -> bool {
    true
}

fn default_page() -> u32 {
    1
}

// ---------------------------------------------------------------------------------------------
// info

/// No arguments: info only reports the jail and its limits.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "InfoInput")]
pub struct InfoInput {}

/// The jail and its limits.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(title = "InfoOutput")]
pub struct InfoOutput {
    /// Canonical absolute paths of the allowed roots, primary first.
    pub base_paths: Vec<String>,
    /// Byte budget of one batch read (paths[]).
    pub batch_read_budget_bytes: u64,
    /// Noise globs hidden from tree and search unless use_default_excludes is false.
    pub default_exclude_globs: Vec<String>,
    /// list-folder page size when page_size is unset.
    pub list_default_page_size: u32,
    /// The largest page_size list-folder accepts.
    pub list_max_page_size: u32,
    /// Byte budget of a single-path full read.
    pub max_output_bytes: u64,
    /// Per-file read ceiling.
    pub max_read_bytes: u64,
    /// Per-file write ceiling.
    pub max_write_bytes: u64,
    /// Globs of files that are listable but never readable or writable.
    pub non_accessible_globs: Vec<String>,
    /// The primary root, where relative paths resolve (base_paths[0]).
    pub primary_root: String,
    /// Bytes of each line search considers and returns.
    pub search_default_max_line_bytes: u32,
    /// Search match cap when max_matches is unset.
    pub search_default_max_matches: u32,
    /// Byte budget of one search response.
    pub search_response_budget_bytes: u64,
    /// Tree depth when max_depth is unset.
    pub tree_default_depth: u32,
    /// Children listed per tree folder.
    pub tree_per_folder_limit: u32,
    /// The server's version.
    pub version: String,
}

// ---------------------------------------------------------------------------------------------
// read-file

/// Read one file (path) or several (paths): a stat probe, a line window, or the whole file.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "ReadFileInput")]
pub struct ReadFileInput {
    /// Session directory: relative paths anchor here and every path must stay inside it.
    #[serde(default)]
    pub base_dir: Option<String>,
    /// First line of the window, 1-based inclusive.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub line_from: Option<u64>,
    /// Last line of the window, 1-based inclusive; unset reads to the end.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub line_to: Option<u64>,
    /// Per-call budget of a full read (clamped to max_read_bytes).
    #[serde(default)]
    pub max_output_bytes: Option<u64>,
    /// Prefix each line with its absolute 1-based number and an arrow (N→).
    #[serde(default)]
    pub numbered: bool,
    /// The file to read (XOR paths).
    #[serde(default)]
    pub path: Option<String>,
    /// Files to read in one call against a shared budget (XOR path).
    #[serde(default)]
    pub paths: Option<Vec<ReadTarget>>,
    /// Return size, mode, mtime and line count only.
    #[serde(default)]
    pub stat: bool,
}

/// One entry of a batch read: a bare path, or a path with its own window.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ReadTarget {
    /// Read the whole file.
    Bare(String),
    /// A path with per-entry options.
    Spec(ReadSpec),
}

/// A batch entry with its own window and flags.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadSpec {
    /// First line of the window, 1-based inclusive.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub line_from: Option<u64>,
    /// Last line of the window, 1-based inclusive.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub line_to: Option<u64>,
    /// Number the lines (N→).
    #[serde(default)]
    pub numbered: bool,
    /// The file to read.
    pub path: String,
    /// Metadata only.
    #[serde(default)]
    pub stat: bool,
}

/// The result of a read. Single-path fields are null in batch mode; results is null in
/// single-path mode.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
#[schemars(title = "ReadFileOutput")]
pub struct ReadFileOutput {
    /// The content, or the window's lines with their endings; invalid UTF-8 becomes U+FFFD.
    pub content: Option<String>,
    /// Set only for a file that starts with a UTF-16 or UTF-32 byte-order mark: its format
    /// (e.g. "UTF-16LE with BOM, CRLF"). content is then the file's decoded text, every line
    /// ended by \n, and update-file edits that text and writes it back in the same encoding,
    /// BOM and line endings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// Whether the returned content was valid UTF-8.
    pub is_utf8: Option<bool>,
    /// Lines in content.
    pub lines_returned: Option<u64>,
    /// Permission bits.
    pub mode: Option<u32>,
    /// Whether the file goes on past the returned content.
    pub more_lines: Option<bool>,
    /// Modification time, seconds since the epoch.
    pub mtime: Option<i64>,
    /// Canonical absolute path of the file.
    pub path: Option<String>,
    /// Per-entry results of a batch read.
    pub results: Option<Vec<ReadEntryResult>>,
    /// Size of the file in bytes.
    pub size: Option<u64>,
    /// Lines in the file, when the read reached its end.
    pub total_lines: Option<u64>,
}

/// One entry of a batch read.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct ReadEntryResult {
    /// The content or window; null on failure.
    pub content: Option<String>,
    /// Set only for a file that starts with a UTF-16 or UTF-32 byte-order mark: its format; the
    /// content is its decoded text (see read-file's encoding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// Why the entry failed; present only when success is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<WireError>,
    /// Whether the returned content was valid UTF-8.
    pub is_utf8: Option<bool>,
    /// Lines in content.
    pub lines_returned: Option<u64>,
    /// Permission bits.
    pub mode: Option<u32>,
    /// Whether the file goes on past the returned content.
    pub more_lines: Option<bool>,
    /// Modification time, seconds since the epoch.
    pub mtime: Option<i64>,
    /// Canonical absolute path, or the input verbatim when resolution failed.
    pub path: String,
    /// Size of the file in bytes.
    pub size: Option<u64>,
    /// Whether the entry was read.
    pub success: bool,
    /// Lines in the file, when the read reached its end.
    pub total_lines: Option<u64>,
}

// ---------------------------------------------------------------------------------------------
// search

/// Search file contents and/or paths under a folder.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "SearchInput")]
pub struct SearchInput {
    /// Session directory: a relative path anchors here and the walk must stay inside it.
    #[serde(default)]
    pub base_dir: Option<String>,
    /// Context lines after each content match (at most 10).
    #[serde(default)]
    pub context_lines_after: Option<u32>,
    /// Context lines before each content match (at most 10).
    #[serde(default)]
    pub context_lines_before: Option<u32>,
    /// Globs (root-relative) that exclude paths.
    #[serde(default)]
    pub exclude_globs: Vec<String>,
    /// Match case-insensitively.
    #[serde(default)]
    pub ignore_case: bool,
    /// Globs (root-relative) paths must match; empty includes everything.
    #[serde(default)]
    pub include_globs: Vec<String>,
    /// Bytes of each line considered and returned.
    #[serde(default)]
    pub max_line_bytes: Option<u32>,
    /// The most matches returned.
    #[serde(default)]
    pub max_matches: Option<u32>,
    /// The folder to search.
    #[serde(default = "default_dot")]
    pub path: String,
    /// The text (or, with regex, the pattern) to find.
    pub query: String,
    /// Treat query as a regular expression.
    #[serde(default)]
    pub regex: bool,
    /// Search file contents.
    #[serde(default = "default_true")]
    pub search_content: bool,
    /// Search file paths.
    #[serde(default = "default_true")]
    pub search_paths: bool,
    /// Hide default_exclude_globs noise.
    #[serde(default = "default_true")]
    pub use_default_excludes: bool,
}

/// What a search found.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
#[schemars(title = "SearchOutput")]
pub struct SearchOutput {
    /// Matching lines.
    pub content_matches: Vec<ContentMatch>,
    /// Lines longer than max_line_bytes whose first match lies past the bytes a content match
    /// searches and shows (content_matches considers the first max_line_bytes of each line):
    /// each names the file, the line, the 1-based byte column of the match in the whole line
    /// and the line's length in bytes. Read such a line with read-file (line_from and line_to
    /// set to its line). Omitted when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub long_line_matches: Vec<LongLineMatch>,
    /// Matching paths.
    pub path_matches: Vec<PathMatch>,
    /// What the walk passed over without searching it; absent when it passed over nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<SkippedInfo>,
    /// Whether results were cut by max_matches or the response budget.
    pub truncated: bool,
}

/// A line longer than max_line_bytes that matches only past them.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct LongLineMatch {
    /// 1-based byte column where the first match starts, in the whole line.
    pub column: u64,
    /// 1-based line number.
    pub line: u32,
    /// The line's length in bytes, without its line ending.
    pub line_bytes: u64,
    /// Absolute path of the file.
    pub path: String,
}

/// What a walk passed over without showing or searching it (fsgate's addition to the coder
/// worker's responses).
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct SkippedInfo {
    /// Files and folders matching non_accessible_globs, left out.
    pub non_accessible: u32,
    /// Symbolic links that lead round in a loop (no walk follows a link).
    pub symlink_loops: u32,
    /// Folders that could not be opened or listed (permission denied, most often).
    pub unreadable_folders: u32,
}

/// A matching line.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ContentMatch {
    /// Context lines after the match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Vec<String>>,
    /// Context lines before the match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Vec<String>>,
    /// 1-based column (in bytes) where the first match on the line starts.
    pub column: u32,
    /// 1-based line number.
    pub line: u32,
    /// Absolute path of the file.
    pub path: String,
    /// The line, truncated to max_line_bytes.
    pub text: String,
}

/// A matching path.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PathMatch {
    /// Absolute path.
    pub path: String,
}

// ---------------------------------------------------------------------------------------------
// update-file

/// Apply line and regex edits to files.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "UpdateFileInput")]
pub struct UpdateFileInput {
    /// Session directory: relative paths anchor here and every path must stay inside it.
    #[serde(default)]
    pub base_dir: Option<String>,
    /// The files and their operations.
    pub files: Vec<UpdateFileSpec>,
}

/// One file's operations.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateFileSpec {
    /// Operations: line ops apply bottom-up, then replace ops in order.
    pub ops: Vec<UpdateOp>,
    /// The file to edit.
    pub path: String,
}

/// One edit operation.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum UpdateOp {
    /// Insert content before line at_line (lines+1 appends).
    Insert {
        /// The 1-based line to insert before.
        at_line: u32,
        /// The lines to insert.
        content: String,
        /// Optional guard: the line(s) you expect from at_line on (the text the content goes
        /// before), as your read showed them (`N→` prefixes of a numbered read may stay); empty
        /// when appending. When the file differs there, this FILE fails with C210 naming what
        /// the lines hold now, and nothing is written.
        #[serde(default)]
        expect_text: Option<String>,
    },
    /// Delete lines from_line..=to_line.
    Remove {
        /// Optional guard: the text you expect in from_line..=to_line, as your read showed it
        /// (`N→` prefixes of a numbered read may stay). When the file differs there, this FILE
        /// fails with C210 naming what the lines hold now, and nothing is written.
        #[serde(default)]
        expect_text: Option<String>,
        /// First line removed.
        from_line: u32,
        /// Last line removed.
        to_line: u32,
    },
    /// Replace lines from_line..=to_line with content.
    UpdateLines {
        /// The new lines.
        content: String,
        /// Optional guard: the text you expect in from_line..=to_line, as your read showed it
        /// (`N→` prefixes of a numbered read may stay). When the file differs there, this FILE
        /// fails with C210 naming what the lines hold now, and nothing is written.
        #[serde(default)]
        expect_text: Option<String>,
        /// First line replaced.
        from_line: u32,
        /// Last line replaced.
        to_line: u32,
    },
    /// Replace every regex match in the file body (after line ops).
    Replace {
        /// Let `.` match newlines.
        #[serde(default)]
        dot_matches_newline: bool,
        /// Fail the file unless exactly this many matches exist (0 asserts absence).
        #[serde(default)]
        expect_matches: Option<u64>,
        /// Match case-insensitively.
        #[serde(default)]
        ignore_case: bool,
        /// The regular expression.
        pattern: String,
        /// The substitution: $1, ${1}, $name, ${name}; $$ is a literal $.
        replacement: String,
    },
}

/// What update-file did per file.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
#[schemars(title = "UpdateFileOutput")]
pub struct UpdateFileOutput {
    /// One result per file, in request order.
    pub results: Vec<UpdateFileResult>,
}

/// One file's result.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct UpdateFileResult {
    /// Operations applied.
    pub applied: u32,
    /// Post-apply echoes of the edited regions.
    pub echoes: Vec<OpEcho>,
    /// Whether the echo budget ran out.
    pub echoes_truncated: bool,
    /// Why the file failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<WireError>,
    /// Lines in the file after the edit.
    pub new_line_count: u64,
    /// Canonical absolute path, or the input verbatim when resolution failed.
    pub path: String,
    /// Whether the file was updated.
    pub success: bool,
}

/// A post-apply snapshot of one edited region.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct OpEcho {
    /// Middle lines left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elided: Option<u64>,
    /// 1-based line of the first echoed line, after all ops.
    pub from_line: u64,
    /// The echoed lines.
    pub lines: Vec<String>,
    /// Index of the op in the request.
    pub op_index: u32,
    /// Replacements the regex op made in the whole file (replace echoes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_replacements: Option<u64>,
}

// ---------------------------------------------------------------------------------------------
// create-file

/// Create files.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "CreateFileInput")]
pub struct CreateFileInput {
    /// Session directory: relative paths anchor here and every path must stay inside it.
    #[serde(default)]
    pub base_dir: Option<String>,
    /// The files to create.
    pub files: Vec<CreateFileSpec>,
}

/// One file to create.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateFileSpec {
    /// The content.
    pub content: String,
    /// Octal permission bits, e.g. "0644". Left out, a new file gets 0644 and a replaced one
    /// keeps its own.
    #[serde(default)]
    #[schemars(extend("default" = "0644"), with = "String")]
    pub mode: Option<String>,
    /// Replace an existing file.
    #[serde(default)]
    pub overwrite: bool,
    /// Create missing parent directories.
    #[serde(default = "default_true")]
    pub parents: bool,
    /// The file to create.
    pub path: String,
}

/// What create-file did.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
#[schemars(title = "CreateFileOutput")]
pub struct CreateFileOutput {
    /// One result per file, in request order.
    pub results: Vec<CreateFileResult>,
}

/// One file's result.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct CreateFileResult {
    /// Bytes written.
    pub bytes_written: u64,
    /// Why the file failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<WireError>,
    /// Canonical absolute path, or the input verbatim when resolution failed.
    pub path: String,
    /// Whether the file was written.
    pub success: bool,
}

// ---------------------------------------------------------------------------------------------
// delete-file

/// Remove paths.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "DeleteFileInput")]
pub struct DeleteFileInput {
    /// Session directory: relative paths anchor here and every path must stay inside it.
    #[serde(default)]
    pub base_dir: Option<String>,
    /// The paths to remove.
    pub paths: Vec<String>,
    /// Required for non-empty directories.
    #[serde(default)]
    pub recursive: bool,
}

/// What delete-file did.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
#[schemars(title = "DeleteFileOutput")]
pub struct DeleteFileOutput {
    /// One result per path, in request order.
    pub results: Vec<DeleteFileResult>,
}

/// One path's result.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct DeleteFileResult {
    /// Why the path failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<WireError>,
    /// Canonical absolute path, or the input verbatim when resolution failed.
    pub path: String,
    /// Whether something was removed (false for a path that did not exist).
    pub removed: bool,
    /// Whether the path is gone.
    pub success: bool,
}

// ---------------------------------------------------------------------------------------------
// move

/// Move or rename paths.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "MoveFileInput")]
pub struct MoveFileInput {
    /// Session directory: relative paths anchor here and both ends must stay inside it.
    #[serde(default)]
    pub base_dir: Option<String>,
    /// The moves, each independent of the others.
    pub files: Vec<MoveFileSpec>,
}

/// One move.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveFileSpec {
    /// Source path.
    pub from: String,
    /// Replace an existing destination file.
    #[serde(default)]
    pub overwrite: bool,
    /// Create missing parent directories of the destination.
    #[serde(default = "default_true")]
    pub parents: bool,
    /// Destination path.
    pub to: String,
}

/// What move did.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
#[schemars(title = "MoveFileOutput")]
pub struct MoveFileOutput {
    /// One result per move, in request order.
    pub results: Vec<MoveFileResult>,
}

/// One move's result.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct MoveFileResult {
    /// Why the move failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<WireError>,
    /// Canonical absolute source path, or the input verbatim when resolution failed.
    pub from: String,
    /// Whether the move completed (false for a move onto itself).
    pub moved: bool,
    /// Whether the entry succeeded.
    pub success: bool,
    /// Canonical absolute destination path, or the input verbatim when resolution failed.
    pub to: String,
}

// ---------------------------------------------------------------------------------------------
// list-folder

/// List one folder, a page at a time.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "ListFolderInput")]
pub struct ListFolderInput {
    /// Session directory: a relative path anchors here and the folder must stay inside it.
    #[serde(default)]
    pub base_dir: Option<String>,
    /// 1-based page.
    #[serde(default = "default_page")]
    pub page: u32,
    /// Entries per page (capped by list_max_page_size).
    #[serde(default)]
    pub page_size: Option<u32>,
    /// The folder to list.
    #[serde(default = "default_dot")]
    pub path: String,
}

/// What an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    Other,
}

/// One entry of a folder.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct DirEntry {
    /// What it is.
    pub kind: EntryKind,
    /// Modification time, seconds since the epoch.
    pub mtime: i64,
    /// Its name; its path is the response's path + "/" + name.
    pub name: String,
    /// Whether it matches non_accessible_globs.
    pub non_accessible: bool,
    /// Size in bytes.
    pub size: u64,
}

/// A page of a folder.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(title = "ListFolderOutput")]
pub struct ListFolderOutput {
    /// The page's entries, sorted by name.
    pub entries: Vec<DirEntry>,
    /// Whether more pages follow.
    pub has_more: bool,
    /// This page.
    pub page: u32,
    /// The page size used.
    pub page_size: u32,
    /// Canonical absolute path of the folder.
    pub path: String,
    /// Entries in the folder.
    pub total: u64,
}

// ---------------------------------------------------------------------------------------------
// tree

/// A recursive snapshot of a folder.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "TreeInput")]
pub struct TreeInput {
    /// Session directory: a relative path anchors here and the folder must stay inside it.
    #[serde(default)]
    pub base_dir: Option<String>,
    /// Deepest level to descend; the root is depth 0.
    #[serde(default)]
    pub max_depth: Option<u32>,
    /// The folder at the root.
    #[serde(default = "default_dot")]
    pub path: String,
    /// Children listed per folder.
    #[serde(default)]
    pub per_folder_limit: Option<u32>,
    /// Show default_exclude_globs noise as childless stubs.
    #[serde(default = "default_true")]
    pub use_default_excludes: bool,
}

/// The snapshot.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(title = "TreeOutput")]
pub struct TreeOutput {
    /// Canonical absolute path of the folder; the root node's path.
    pub path: String,
    /// The root node.
    pub root: TreeNode,
    /// What the walk passed over (folders it could not list, each also flagged `truncated`
    /// with reason "unreadable"); absent when it passed over nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<SkippedInfo>,
}

/// A node of the snapshot.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct TreeNode {
    /// Children, for folders that were entered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<TreeNode>>,
    /// What it is.
    pub kind: EntryKind,
    /// Modification time, seconds since the epoch.
    pub mtime: i64,
    /// Its name.
    pub name: String,
    /// Whether it matches non_accessible_globs.
    pub non_accessible: bool,
    /// Size in bytes.
    pub size: u64,
    /// Why the folder's children are incomplete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<TruncationInfo>,
}

/// Why a folder's children are incomplete.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct TruncationInfo {
    /// What to do to see the rest.
    pub hint: String,
    /// "per_folder_limit", "max_depth", "default_exclude", "artifact_folder" or
    /// "unreadable".
    pub reason: String,
    /// Children returned.
    pub shown: u32,
    /// Children eligible (per_folder_limit only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u32>,
}
