//! The one error type every operation returns: a stable kind plus a message written for the
//! model (the problem, the actual values, and the corrective next call).

use std::fmt;

/// What went wrong, in a small stable vocabulary. Each surface maps a kind to its own words
/// (gg prints the kind's name; later profiles map it to their codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The path does not exist.
    NotFound,
    /// An argument is missing, malformed, out of range, or names the wrong kind of thing.
    InvalidArgument,
    /// The call is not allowed under this configuration.
    Denied,
    /// The text to replace does not occur in the file.
    NoMatch,
    /// The text to replace occurs more than once.
    NotUnique,
    /// The path leads outside every allowed root of the jail.
    OutsideRoot,
    /// The path leads outside the call's session directory (`base_dir`).
    OutsideSession,
    /// The path matches the non-accessible (secret) patterns.
    NotAccessible,
    /// A file or a result is larger than a configured limit.
    TooLarge,
    /// The target exists and the call asked not to replace it.
    AlreadyExists,
    /// The file changed on disk after the call read it; nothing was written.
    Conflict,
    /// The caller cancelled the call before it finished.
    Cancelled,
    /// A program ran into a bound of its sandbox (CPU time, clock time, memory, stack, output).
    Limit,
    /// The file is no longer at the version the call named (`expected_version`), or changed
    /// since the mutation an undo would reverse; nothing was written.
    Stale,
    /// The operating system refused or failed the operation.
    Io,
}

impl ErrorKind {
    /// The kind's stable name, as gg prints it before the colon.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not-found",
            ErrorKind::InvalidArgument => "invalid-argument",
            ErrorKind::Denied => "denied",
            ErrorKind::NoMatch => "no-match",
            ErrorKind::NotUnique => "not-unique",
            ErrorKind::OutsideRoot => "outside-root",
            ErrorKind::OutsideSession => "outside-session",
            ErrorKind::NotAccessible => "not-accessible",
            ErrorKind::TooLarge => "too-large",
            ErrorKind::AlreadyExists => "already-exists",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Limit => "limit",
            ErrorKind::Stale => "stale",
            ErrorKind::Io => "io",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed call: its kind and a complete, model-facing message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct ToolError {
    /// The stable kind.
    pub kind: ErrorKind,
    /// The problem, the actual values, and what to do next.
    pub message: String,
    /// The next step the message ends with in words every profile can follow
    /// ([`NextStep::neutral`]), until a surface words it with its own tools
    /// ([`ToolError::worded`]).
    pub next: Option<NextStep>,
}

/// A next step an engine or access error recommends without naming a tool: the engine does not
/// know which profile's tools the model has, so the message ends with the step in neutral words
/// and each surface replaces them with its own call ([`ToolError::worded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NextStep {
    /// Look at the folder the path should be in.
    CheckPath,
    /// The path is a folder: look at its entries.
    SeeEntries,
}

impl NextStep {
    /// The step in words that name no tool, as an unworded message ends with it.
    pub fn neutral(self) -> &'static str {
        match self {
            NextStep::CheckPath => "check the path by listing its folder",
            NextStep::SeeEntries => "list it to see its entries",
        }
    }
}

/// How one profile says each [`NextStep`] with its own tools.
#[derive(Clone, Copy, Debug)]
pub struct NextWords {
    /// For [`NextStep::CheckPath`], e.g. `check the path with list_dir`.
    pub check_path: &'static str,
    /// For [`NextStep::SeeEntries`], e.g. `use list_dir or tree to see its entries`.
    pub see_entries: &'static str,
}

impl ToolError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ToolError {
            kind,
            message: message.into(),
            next: None,
        }
    }

    /// An error whose message ends with `next` in neutral words (`; ` and the step).
    fn with_next(kind: ErrorKind, message: String, next: NextStep) -> Self {
        ToolError {
            kind,
            message: format!("{message}; {}", next.neutral()),
            next: Some(next),
        }
    }

    /// This error with its next step said in a profile's words: the neutral ending replaced by
    /// the profile's call. An error without a next step, or one already worded, is returned as
    /// it is.
    pub fn worded(mut self, words: &NextWords) -> Self {
        let Some(next) = self.next.take() else {
            return self;
        };
        let said = match next {
            NextStep::CheckPath => words.check_path,
            NextStep::SeeEntries => words.see_entries,
        };
        // The step is the last thing the error added; a not-found may be followed by the near
        // misses of the missing name.
        if let Some(at) = self.message.rfind(next.neutral()) {
            self.message
                .replace_range(at..at + next.neutral().len(), said);
        }
        self
    }

    /// A [`ErrorKind::NotFound`] error. When the path it names was found missing earlier in
    /// this call, the existing siblings that differ from it only in case, percent-encoding or
    /// extension are named too ([`crate::access::hints`]).
    pub fn not_found(message: impl Into<String>) -> Self {
        let message = crate::access::hints::amend_not_found(message.into());
        Self::new(ErrorKind::NotFound, message)
    }

    /// An [`ErrorKind::InvalidArgument`] error.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidArgument, message)
    }

    /// Maps an I/O error met while doing `action` on `shown` (the path as the model knows it).
    /// Missing files become not-found, everything else keeps the operating system's words.
    pub fn from_io(err: &std::io::Error, action: &str, shown: &str) -> Self {
        use std::io::ErrorKind as K;
        if crate::access::fs::Conflict::is(err) {
            return Self::new(
                ErrorKind::Conflict,
                format!(
                    "{shown} changed on disk while this call was working on it (another writer \
                     saved first; compared by content), so nothing was written; read it again \
                     and redo the change on what it holds now"
                ),
            );
        }
        match err.kind() {
            K::NotFound => {
                let next = NextStep::CheckPath;
                let mut err = Self::not_found(format!(
                    "{shown} does not exist (while trying to {action}); {}",
                    next.neutral()
                ));
                err.next = Some(next);
                err
            }
            K::PermissionDenied => Self::new(
                ErrorKind::Denied,
                format!("permission denied when trying to {action} {shown}: {err}"),
            ),
            K::NotADirectory => Self::with_next(
                ErrorKind::InvalidArgument,
                format!("a parent of {shown} is a file, not a directory, so it cannot {action}"),
                NextStep::CheckPath,
            ),
            // A name or path the filesystem cannot hold (`ENAMETOOLONG`), or a file path
            // written as a directory's.
            K::InvalidFilename => Self::invalid(format!("cannot {action} {}: {err}", clip(shown))),
            K::IsADirectory => Self::with_next(
                ErrorKind::InvalidArgument,
                format!("{shown} is a directory, so it cannot {action}"),
                NextStep::SeeEntries,
            ),
            _ => Self::new(ErrorKind::Io, format!("could not {action} {shown}: {err}")),
        }
    }
}

/// `shown` with its middle left out when it is too long to repeat in full (a path of
/// thousands of bytes).
fn clip(shown: &str) -> std::borrow::Cow<'_, str> {
    const KEEP: usize = 80;
    if shown.chars().count() <= 2 * KEEP {
        return shown.into();
    }
    let head: String = shown.chars().take(KEEP).collect();
    let tail: Vec<char> = shown.chars().rev().take(KEEP).collect();
    let tail: String = tail.into_iter().rev().collect();
    format!("{head}…{tail} ({} bytes)", shown.len()).into()
}

/// Result alias for operations.
pub type Result<T, E = ToolError> = std::result::Result<T, E>;
