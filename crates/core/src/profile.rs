//! The one registry of profiles. Every profile fsgate serves is one variant of [`Profile`] (its
//! name; the command line's `--profile` derives from it, each variant's doc being its help
//! text) and one of [`ProfileConfig`] (the profile with its configuration, what a workspace
//! opens with). Every match over them is here and none has a wildcard arm, so a new profile is
//! a folder under `surface/` (its [`Surface`]), a file under `config/` (its configuration) and a
//! variant in each enum of this file: the compiler then names every arm still to write, all of
//! them in this file, and nothing elsewhere falls back to another profile.
//!
//! It sits beside the layers, not in one: it joins a profile's configuration to its surface and
//! to the access layer that surface works through, as [`crate::Workspace::open`] asks.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::access::{Access, Jail, JailConfig};
use crate::config::ConfigError;
use crate::config::coder::CoderConfig;
use crate::config::gg::GgConfig;
use crate::config::native::NativeConfig;
use crate::config::picoclaw::PicoclawConfig;
use crate::config::qwen::QwenConfig;
use crate::config::sgpt::SgptConfig;
use crate::surface::Surface;
use crate::surface::coder::Coder;
use crate::surface::gg::Gg;
use crate::surface::native::Native;
use crate::surface::picoclaw::Picoclaw;
use crate::surface::qwen::Qwen;
use crate::surface::sgpt::Sgpt;
use crate::{OpenError, Options};

/// The tool surfaces fsgate offers. With the `clap` feature it is a `clap::ValueEnum`, each
/// variant's doc below being its help text. Not `#[non_exhaustive]`, on purpose: a match over
/// the profiles names every one, so a new profile shows wherever one is matched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Profile {
    /// gg: read_file, write_file, edit_file, list_dir, tree, search.
    #[default]
    Gg,
    /// coder: info, read-file, search, update-file, create-file, delete-file, move,
    /// list-folder, tree, confined to the allowed roots.
    Coder,
    /// qwen: list_directory, read_file, notebook_edit, write_file, glob, grep_search, edit.
    Qwen,
    /// picoclaw: read_file, write_file, edit_file, append_file, list_dir, search_files.
    Picoclaw,
    /// sgpt: read_files, diff, replace, exec_shell, search_lores, agent.
    Sgpt,
    /// native: fsgate's own tools: read_file, edit, apply_patch, write_file, search, glob,
    /// tree, list_dir, move, delete, undo, info (version tokens, all-or-nothing patches).
    Native,
}

impl Profile {
    /// Every profile, in the order the command line lists them (the command line's unit test
    /// `the_profile_flag_offers_every_registered_profile_by_its_name` fails when a variant is
    /// missing here).
    pub const ALL: [Profile; 6] = [
        Profile::Gg,
        Profile::Coder,
        Profile::Qwen,
        Profile::Picoclaw,
        Profile::Sgpt,
        Profile::Native,
    ];

    /// The profile's name, as `--profile` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Gg => "gg",
            Profile::Coder => "coder",
            Profile::Qwen => "qwen",
            Profile::Picoclaw => "picoclaw",
            Profile::Sgpt => "sgpt",
            Profile::Native => "native",
        }
    }

    /// The profile named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether the profile's configuration names its roots (coder's `base_paths`), which a
    /// workspace opened with no roots uses; the others need roots given (a command line gives
    /// the current directory).
    pub fn configures_roots(self) -> bool {
        match self {
            Profile::Coder => true,
            Profile::Gg | Profile::Qwen | Profile::Picoclaw | Profile::Sgpt | Profile::Native => {
                false
            }
        }
    }

    /// Whether a server of this profile watches its configuration file and applies a change
    /// while it runs (coder's numeric limits); the others read theirs once, at start.
    pub fn reloads_config(self) -> bool {
        match self {
            Profile::Coder => true,
            Profile::Gg | Profile::Qwen | Profile::Picoclaw | Profile::Sgpt | Profile::Native => {
                false
            }
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A profile with its configuration: what [`Options::profile`] opens a workspace as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileConfig {
    /// gg, with its TOML configuration.
    Gg(GgConfig),
    /// The coder worker, with its YAML configuration.
    Coder(CoderConfig),
    /// Qwen Code's tools, with its settings.json.
    Qwen(QwenConfig),
    /// PicoClaw's tools, with its JSON configuration.
    Picoclaw(PicoclawConfig),
    /// sgpt's tools, with its TOML configuration.
    Sgpt(SgptConfig),
    /// fsgate's native tools, with its TOML configuration.
    Native(NativeConfig),
}

impl Default for ProfileConfig {
    fn default() -> Self {
        ProfileConfig::from(Profile::default())
    }
}

/// `profile` with its configuration's defaults.
impl From<Profile> for ProfileConfig {
    fn from(profile: Profile) -> Self {
        match profile {
            Profile::Gg => ProfileConfig::Gg(GgConfig::default()),
            Profile::Coder => ProfileConfig::Coder(CoderConfig::default()),
            Profile::Qwen => ProfileConfig::Qwen(QwenConfig::default()),
            Profile::Picoclaw => ProfileConfig::Picoclaw(PicoclawConfig::default()),
            Profile::Sgpt => ProfileConfig::Sgpt(SgptConfig::default()),
            Profile::Native => ProfileConfig::Native(NativeConfig::default()),
        }
    }
}

impl From<GgConfig> for ProfileConfig {
    fn from(config: GgConfig) -> Self {
        ProfileConfig::Gg(config)
    }
}

impl From<CoderConfig> for ProfileConfig {
    fn from(config: CoderConfig) -> Self {
        ProfileConfig::Coder(config)
    }
}

impl From<QwenConfig> for ProfileConfig {
    fn from(config: QwenConfig) -> Self {
        ProfileConfig::Qwen(config)
    }
}

impl From<PicoclawConfig> for ProfileConfig {
    fn from(config: PicoclawConfig) -> Self {
        ProfileConfig::Picoclaw(config)
    }
}

impl From<SgptConfig> for ProfileConfig {
    fn from(config: SgptConfig) -> Self {
        ProfileConfig::Sgpt(config)
    }
}

impl From<NativeConfig> for ProfileConfig {
    fn from(config: NativeConfig) -> Self {
        ProfileConfig::Native(config)
    }
}

/// The process environment, which some configurations read besides their file.
fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

impl ProfileConfig {
    /// Which profile this is.
    pub fn profile(&self) -> Profile {
        match self {
            ProfileConfig::Gg(_) => Profile::Gg,
            ProfileConfig::Coder(_) => Profile::Coder,
            ProfileConfig::Qwen(_) => Profile::Qwen,
            ProfileConfig::Picoclaw(_) => Profile::Picoclaw,
            ProfileConfig::Sgpt(_) => Profile::Sgpt,
            ProfileConfig::Native(_) => Profile::Native,
        }
    }

    /// The configuration `profile` serves with, validated: `file` in the profile's own format
    /// when one is named, else where the profile looks by itself (qwen: the user's and the
    /// first root's `.qwen/settings.json`), else its defaults; with what the process
    /// environment sets over it (gg's `FSGATE_COUNT_BUDGET_*`, picoclaw's
    /// `PICOCLAW_TOOLS_<TOOL>_ENABLED`, coder's `${VAR}` references). What `serve --config FILE`
    /// and `check-config FILE` both run, so they refuse the same files.
    pub fn load(
        profile: Profile,
        file: Option<&Path>,
        roots: &[PathBuf],
    ) -> Result<ProfileConfig, ConfigError> {
        Ok(match profile {
            Profile::Gg => {
                let mut config = file.map_or_else(|| Ok(GgConfig::default()), GgConfig::load)?;
                config.apply_env(&process_env)?;
                ProfileConfig::Gg(config)
            }
            Profile::Coder => ProfileConfig::Coder(
                file.map_or_else(|| Ok(CoderConfig::default()), CoderConfig::load)?,
            ),
            Profile::Qwen => ProfileConfig::Qwen(match (file, roots.first()) {
                (Some(path), _) => QwenConfig::load(path)?,
                (None, Some(root)) => {
                    let home = std::env::var_os("HOME").map(PathBuf::from);
                    QwenConfig::discover(root, home.as_deref())?
                }
                // No root: opening refuses before any setting matters.
                (None, None) => QwenConfig::default(),
            }),
            Profile::Picoclaw => ProfileConfig::Picoclaw(
                file.map_or_else(PicoclawConfig::from_env, PicoclawConfig::load)?,
            ),
            Profile::Sgpt => ProfileConfig::Sgpt(
                file.map_or_else(|| Ok(SgptConfig::default()), SgptConfig::load)?,
            ),
            Profile::Native => ProfileConfig::Native(
                file.map_or_else(|| Ok(NativeConfig::default()), NativeConfig::load)?,
            ),
        })
    }

    /// Validates `text` as `profile`'s configuration file, as [`ProfileConfig::load`] validates
    /// a file's text (the console checks what it edits with it); `source_name` names the text
    /// in the refusal.
    pub fn parse(
        profile: Profile,
        text: &str,
        source_name: &str,
    ) -> Result<ProfileConfig, ConfigError> {
        Ok(match profile {
            Profile::Gg => ProfileConfig::Gg(GgConfig::parse(text, source_name)?),
            Profile::Coder => {
                ProfileConfig::Coder(CoderConfig::parse(text, source_name, &process_env)?)
            }
            Profile::Qwen => ProfileConfig::Qwen(QwenConfig::parse(text, source_name)?),
            Profile::Picoclaw => {
                ProfileConfig::Picoclaw(PicoclawConfig::parse(text, source_name, &process_env)?)
            }
            Profile::Sgpt => ProfileConfig::Sgpt(SgptConfig::parse(text, source_name)?),
            Profile::Native => ProfileConfig::Native(NativeConfig::parse(text, source_name)?),
        })
    }
}

/// What opening a workspace builds: its access layer, the surface the model sees, and what
/// was skipped on the way (unreachable roots), for the caller to log.
pub(crate) struct Opened {
    pub access: Access,
    pub surface: Box<dyn Surface>,
    pub warnings: Vec<String>,
}

/// The access layer confined to `config`'s roots, and the roots it skipped.
fn jailed(config: &JailConfig) -> Result<(Access, Vec<String>), OpenError> {
    let (jail, skipped) = Jail::new(config)?;
    Ok((Access::jailed(jail), skipped))
}

/// The roots a jailed profile without defaults of its own opens: those given, at least one.
fn given_roots(options: &Options) -> Result<Vec<PathBuf>, OpenError> {
    if options.roots.is_empty() {
        return Err(OpenError::NoRoot);
    }
    Ok(options.roots.clone())
}

/// Opens the profile `options` name: its access layer, from its configuration's roots and
/// non-accessible globs, and its surface.
pub(crate) fn open(options: &Options) -> Result<Opened, OpenError> {
    let (access, surface, warnings): (Access, Box<dyn Surface>, Vec<String>) =
        match &options.profile {
            ProfileConfig::Gg(config) => {
                let root = options.roots.first().ok_or(OpenError::NoRoot)?;
                let secrets = &config.non_accessible_globs;
                let (access, warnings) = if options.jail {
                    jailed(&JailConfig {
                        roots: options.roots.clone(),
                        non_accessible: secrets.clone(),
                        ..JailConfig::default()
                    })?
                } else {
                    let access = Access::new(root)
                        .map_err(|source| OpenError::Root {
                            path: root.clone(),
                            source,
                        })?
                        .with_secrets(secrets)?;
                    (access, Vec::new())
                };
                let surface = Gg::new(config, options.agent.as_deref(), options.no_vision)?
                    .with_arm(options.arm.unwrap_or(config.arm))
                    .with_vision_switch(options.vision.clone())
                    .with_image_limits(options.images);
                (access, Box::new(surface), warnings)
            }
            ProfileConfig::Coder(config) => {
                // No roots given: the configuration's base_paths.
                let roots = if options.roots.is_empty() {
                    config.base_paths.clone()
                } else {
                    options.roots.clone()
                };
                let (access, warnings) = jailed(&JailConfig {
                    roots,
                    non_accessible: config.non_accessible_globs.clone(),
                    default_excludes: config.default_exclude_globs.clone(),
                })?;
                (access, Box::new(Coder::new(config.clone())), warnings)
            }
            ProfileConfig::Qwen(config) => {
                let (access, warnings) = jailed(&JailConfig {
                    roots: given_roots(options)?,
                    non_accessible: config.non_accessible_globs.clone(),
                    ..JailConfig::default()
                })?;
                let surface = Qwen::new(config.clone()).with_image_limits(options.images);
                (access, Box::new(surface), warnings)
            }
            ProfileConfig::Picoclaw(config) => {
                let (access, warnings) = jailed(&JailConfig {
                    roots: given_roots(options)?,
                    non_accessible: config.non_accessible_globs.clone(),
                    ..JailConfig::default()
                })?;
                (access, Box::new(Picoclaw::new(config.clone())), warnings)
            }
            ProfileConfig::Sgpt(config) => {
                let (access, warnings) = jailed(&JailConfig {
                    roots: given_roots(options)?,
                    non_accessible: config.non_accessible_globs.clone(),
                    ..JailConfig::default()
                })?;
                let access = access.with_artifact_dir(&config.artifact_dir);
                (access, Box::new(Sgpt::new(config.clone())), warnings)
            }
            ProfileConfig::Native(config) => {
                let (access, warnings) = jailed(&JailConfig {
                    roots: given_roots(options)?,
                    non_accessible: config.non_accessible_globs.clone(),
                    ..JailConfig::default()
                })?;
                // A multi-file change a crash interrupted is rolled back before anything else.
                let mut warnings = warnings;
                warnings.extend(crate::access::txn::recover(
                    config.journal_dir.as_deref(),
                    &access,
                ));
                let surface = Native::new(config.clone()).with_image_limits(options.images);
                (access, Box::new(surface), warnings)
            }
        };
    let profile = options.profile.profile();
    let surface: Box<dyn Surface> = if options.versions && profile != Profile::Native {
        Box::new(crate::surface::versioned::Versioned::new(surface, profile))
    } else {
        surface
    };
    Ok(Opened {
        access,
        surface,
        warnings,
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // writes the configuration files under test
mod tests {
    use super::*;

    /// The non-accessible globs of whichever profile `config` is.
    fn secret_globs(config: &ProfileConfig) -> &[String] {
        match config {
            ProfileConfig::Gg(c) => &c.non_accessible_globs,
            ProfileConfig::Coder(c) => &c.non_accessible_globs,
            ProfileConfig::Qwen(c) => &c.non_accessible_globs,
            ProfileConfig::Picoclaw(c) => &c.non_accessible_globs,
            ProfileConfig::Sgpt(c) => &c.non_accessible_globs,
            ProfileConfig::Native(c) => &c.non_accessible_globs,
        }
    }

    #[test]
    fn each_profile_reads_its_configuration_in_its_own_format() {
        let dir = tempfile::tempdir().unwrap();
        let roots = [dir.path().to_path_buf()];
        let toml = "[access]\nnon_accessible_globs = [\"**/.env\"]\n";
        for (profile, text) in [
            (Profile::Gg, toml),
            (Profile::Coder, "non_accessible_globs:\n  - \"**/.env\"\n"),
            (
                Profile::Qwen,
                r#"{"context": {"fileFiltering": {"nonAccessibleGlobs": ["**/.env"]}}}"#,
            ),
            (
                Profile::Picoclaw,
                r#"{"tools": {"non_accessible_globs": ["**/.env"]}}"#,
            ),
            (Profile::Sgpt, toml),
        ] {
            let file = dir.path().join(format!("{profile}.conf"));
            std::fs::write(&file, text).unwrap();
            let loaded = ProfileConfig::load(profile, Some(&file), &roots).unwrap();
            assert_eq!(loaded.profile(), profile);
            assert_eq!(secret_globs(&loaded), ["**/.env"], "{profile}");
            let parsed = ProfileConfig::parse(profile, text, "t").unwrap();
            assert_eq!(parsed, loaded, "{profile}");
        }
        // One profile's file is not another's: gg's TOML is not PicoClaw's JSON.
        let err = ProfileConfig::parse(Profile::Picoclaw, toml, "gg.toml").unwrap_err();
        assert!(err.to_string().contains("not valid JSON"), "{err}");
    }

    #[test]
    fn without_a_file_qwen_reads_the_first_roots_settings_and_the_others_their_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".qwen")).unwrap();
        std::fs::write(
            dir.path().join(".qwen/settings.json"),
            r#"{"context": {"fileFiltering": {"nonAccessibleGlobs": ["**/*.pem"]}}}"#,
        )
        .unwrap();
        let roots = [dir.path().to_path_buf()];
        let qwen = ProfileConfig::load(Profile::Qwen, None, &roots).unwrap();
        assert_eq!(secret_globs(&qwen), ["**/*.pem"]);
        for profile in [Profile::Gg, Profile::Coder, Profile::Sgpt] {
            let loaded = ProfileConfig::load(profile, None, &roots).unwrap();
            assert_eq!(loaded, ProfileConfig::from(profile), "{profile}");
        }
    }

    #[test]
    fn every_profile_is_listed_once_and_found_by_its_name() {
        for profile in Profile::ALL {
            assert_eq!(Profile::from_name(profile.name()), Some(profile));
            assert_eq!(ProfileConfig::from(profile).profile(), profile);
        }
        let mut names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Profile::ALL.len());
        assert_eq!(Profile::from_name("codex"), None);
    }

    #[test]
    fn a_profile_config_opens_the_surface_of_its_own_profile() {
        let dir = tempfile::tempdir().unwrap();
        for profile in Profile::ALL {
            let options = Options {
                profile: profile.into(),
                ..Options::new(dir.path())
            };
            let opened = open(&options).unwrap();
            let tools: Vec<String> = opened
                .surface
                .tools()
                .iter()
                .map(|t| t.name.to_string())
                .collect();
            let listed = match profile {
                Profile::Gg => "list_dir",
                Profile::Coder => "list-folder",
                Profile::Qwen => "list_directory",
                Profile::Picoclaw => "search_files",
                Profile::Sgpt => "read_files",
                Profile::Native => "apply_patch",
            };
            assert!(tools.iter().any(|t| t == listed), "{profile}: {tools:?}");
        }
    }
}
