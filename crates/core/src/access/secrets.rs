//! Non-accessible (secret) globs of a workspace without a jail (gg's default, picoclaw's
//! unrestricted mode): the patterns a jail takes as `JailConfig::non_accessible`, compiled the
//! same way (globset syntax, any letter case). A path is matched relative to the working
//! directory when it lies there, else as the absolute path it is, so `**/.env` also hides a
//! `.env` elsewhere on the disk. [`super::Access::is_secret_path`] is the one test every tool
//! goes through, confined or not.

use std::path::Path;

use globset::GlobSet;

use super::JailError;

/// Compiled non-accessible globs.
#[derive(Debug)]
pub struct Secrets {
    set: GlobSet,
    globs: Vec<String>,
}

impl Secrets {
    /// Compiles `globs`; `None` when there are none. A pattern that does not parse is an error
    /// naming it, as the jail's is.
    pub fn new(globs: &[String]) -> Result<Option<Secrets>, JailError> {
        if globs.is_empty() {
            return Ok(None);
        }
        let set = super::jail::glob_set(globs, true, "non_accessible_globs")?;
        Ok(Some(Secrets {
            set,
            globs: globs.to_vec(),
        }))
    }

    /// The patterns as configured.
    pub fn globs(&self) -> &[String] {
        &self.globs
    }

    /// Whether `path` (relative to the working directory, or absolute) matches.
    pub fn is_match(&self, path: &Path) -> bool {
        self.set.is_match(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_and_absolute_paths_match_in_any_case() {
        let s = Secrets::new(&["**/.env".to_string(), "**/*.pem".to_string()])
            .unwrap()
            .unwrap();
        assert!(s.is_match(Path::new(".env")));
        assert!(s.is_match(Path::new("app/.ENV")));
        assert!(s.is_match(Path::new("/home/u/keys/server.PEM")));
        assert!(!s.is_match(Path::new("app/.envrc")));
        assert!(Secrets::new(&[]).unwrap().is_none());
        assert!(Secrets::new(&["**/[.pem".to_string()]).is_err());
    }
}
