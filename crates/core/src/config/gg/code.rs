//! gg's arm and the bounds of its code arm: `arm = "code"` offers one tool, `run_code`, in
//! place of the six; the `[code]` table bounds what one program may use and what one view may
//! carry.
//!
//! ```toml
//! arm = "code"                 # or "tools", the default
//! [code]
//! cpu_limit_ms = 10000         # the program's own computing time
//! time_limit_ms = 60000        # the whole run on the clock, its gg.* calls included
//! memory_limit_mib = 64        # the program's heap
//! stack_limit_kib = 512        # how deep it may recurse
//! output_limit_kib = 64        # console.log output and the returned value together
//! view_max_lines = 2000        # the most lines one view may carry
//! view_max_kib = 128           # the most bytes one view may carry
//! image_cost_rule = "anthropic"  # or "openai", "gemini": how an image's tokens are estimated
//! ```

use toml::{Table, Value};

use super::{GgConfig, Validator};
use crate::config::{describe, join, quoted_list};
use crate::window::ImageRule;

/// How the model calls gg's file tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Arm {
    /// Tool calling: one call per step (read_file, write_file, ...).
    #[default]
    Tools,
    /// Responses as code: one tool, run_code, runs a program against gg.files and gg.views.
    Code,
}

impl Arm {
    /// The arm's name, as `arm =` and `--arm` take it.
    pub fn name(self) -> &'static str {
        match self {
            Arm::Tools => "tools",
            Arm::Code => "code",
        }
    }
}

/// The bounds of one run_code program and of the views it opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeLimits {
    /// The program's computing time (its thread's CPU time), in milliseconds. By default 10 s.
    pub cpu_ms: u64,
    /// The whole run on the clock, its gg.* calls included, in milliseconds. By default 60 s.
    pub time_ms: u64,
    /// The program's heap, in bytes. By default 64 MiB.
    pub memory_bytes: u64,
    /// The stack its recursion may use, in bytes. By default 512 KiB.
    pub stack_bytes: u64,
    /// console.log output and the returned value together, in bytes. By default 64 KiB.
    pub output_bytes: u64,
    /// The most lines one view may carry. By default 2,000.
    pub view_lines: u64,
    /// The most bytes one view may carry. By default 128 KiB.
    pub view_bytes: u64,
    /// How an image view's tokens are estimated. By default Anthropic's rule.
    pub image_rule: ImageRule,
}

impl Default for CodeLimits {
    fn default() -> Self {
        CodeLimits {
            cpu_ms: 10_000,
            time_ms: 60_000,
            memory_bytes: 64 << 20,
            stack_bytes: 512 << 10,
            output_bytes: 64 << 10,
            view_lines: 2000,
            view_bytes: 128 << 10,
            image_rule: ImageRule::Anthropic,
        }
    }
}

/// The `[code]` keys: name, unit multiplier, smallest value, and the field each sets.
type Setter = fn(&mut CodeLimits, u64);
const KEYS: [(&str, u64, u64, Setter); 7] = [
    ("cpu_limit_ms", 1, 1, |l, v| l.cpu_ms = v),
    ("time_limit_ms", 1, 1, |l, v| l.time_ms = v),
    ("memory_limit_mib", 1 << 20, 1, |l, v| l.memory_bytes = v),
    ("stack_limit_kib", 1 << 10, 16, |l, v| l.stack_bytes = v),
    ("output_limit_kib", 1 << 10, 1, |l, v| l.output_bytes = v),
    ("view_max_lines", 1, 1, |l, v| l.view_lines = v),
    ("view_max_kib", 1 << 10, 1, |l, v| l.view_bytes = v),
];
const RULE_KEY: &str = "image_cost_rule";

impl Validator {
    /// Reads the top-level `arm` and the `[code]` table into `config`.
    pub(super) fn code(&mut self, root: &Table, config: &mut GgConfig) {
        match root.get("arm") {
            None => {}
            Some(Value::String(s)) if s == "tools" => config.arm = Arm::Tools,
            Some(Value::String(s)) if s == "code" => config.arm = Arm::Code,
            Some(other) => self.problem(
                "arm",
                format!(
                    "{} is not an arm; the two arms are \"tools\" (one tool call per step) and \
                     \"code\" (run_code runs a program against gg.files and gg.views)",
                    describe(other)
                ),
            ),
        }
        let Some(table) = root.get("code").and_then(|v| self.table("code", v)) else {
            return;
        };
        let known: Vec<&str> = KEYS
            .iter()
            .map(|k| k.0)
            .chain(std::iter::once(RULE_KEY))
            .collect();
        self.unknown_keys("code", table, &known);
        for (name, unit, least, set) in KEYS {
            let Some(value) = table.get(name) else {
                continue;
            };
            match value {
                Value::Integer(n) if *n >= least as i64 => {
                    set(&mut config.code, (*n as u64).saturating_mul(unit));
                }
                other => self.problem(
                    &join("code", name),
                    format!(
                        "{} is not allowed; {name} must be a whole number, {least} or more",
                        describe(other)
                    ),
                ),
            }
        }
        if let Some(value) = table.get(RULE_KEY) {
            match value.as_str().and_then(ImageRule::from_name) {
                Some(rule) => config.code.image_rule = rule,
                None => {
                    let names: Vec<&str> = ImageRule::ALL.iter().map(|r| r.name()).collect();
                    self.problem(
                        &join("code", RULE_KEY),
                        format!(
                            "{} is not an image cost rule; the rules are {}",
                            describe(value),
                            quoted_list(&names)
                        ),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arm_and_the_code_bounds_are_read_with_their_units() {
        let config = GgConfig::parse(
            "arm = \"code\"\n[code]\nmemory_limit_mib = 16\nview_max_kib = 4\nimage_cost_rule = \"gemini\"\n",
            "t",
        )
        .unwrap();
        assert_eq!(config.arm, Arm::Code);
        assert_eq!(config.code.memory_bytes, 16 << 20);
        assert_eq!(config.code.view_bytes, 4096);
        assert_eq!(config.code.image_rule, ImageRule::Gemini);
        assert_eq!(config.code.cpu_ms, CodeLimits::default().cpu_ms);
    }

    #[test]
    fn every_bad_code_value_is_named_in_one_refusal() {
        let err = GgConfig::parse(
            "arm = \"script\"\n[code]\ncpu_limit_ms = 0\nstack_limit_kib = \"big\"\nimage_cost_rule = \"bing\"\nfoo = 1\n",
            "t",
        )
        .unwrap_err()
        .to_string();
        for part in [
            "arm: \"script\" is not an arm",
            "code.cpu_limit_ms: 0 is not allowed",
            "code.stack_limit_kib",
            "code.image_cost_rule: \"bing\" is not an image cost rule",
            "code.foo: unknown key",
        ] {
            assert!(err.contains(part), "{part} missing from {err}");
        }
    }
}
