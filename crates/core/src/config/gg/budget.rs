//! gg's budget for counting a large file's lines to state its length (see
//! [`crate::ops::line_index`]): read-file's `countBudgetBytes` and `countBudgetMs` params, and
//! the `FSGATE_COUNT_BUDGET_BYTES` and `FSGATE_COUNT_BUDGET_MS` environment variables, which
//! override them.
//!
//! ```toml
//! [capabilities.read-file]
//! params = { lineCap = 250, countBudgetBytes = 1073741824, countBudgetMs = 1000 }
//! ```

use std::time::Duration;

use toml::{Table, Value};

use super::{GgConfig, Validator};
use crate::config::{ConfigError, Problem, describe, join};
use crate::ops::line_index::CountBudget;

/// The params of read-file that set the budget.
pub(super) const PARAMS: [&str; 2] = ["countBudgetBytes", "countBudgetMs"];
/// The environment variable setting the budget's bytes, over the configuration file.
pub const ENV_BYTES: &str = "FSGATE_COUNT_BUDGET_BYTES";
/// The environment variable setting the budget's milliseconds, over the configuration file.
pub const ENV_MS: &str = "FSGATE_COUNT_BUDGET_MS";

impl Validator {
    /// Reads the budget params of read-file's `params` (at `key`) into `budget`.
    pub(super) fn count_budget(&mut self, key: &str, params: &Table, budget: &mut CountBudget) {
        if let Some(value) = params.get(PARAMS[0]) {
            match whole(value) {
                Some(bytes) => budget.bytes = bytes,
                None => self.problem(
                    &join(key, PARAMS[0]),
                    format!("{} is not a byte count; {}", describe(value), BYTES_ARE),
                ),
            }
        }
        if let Some(value) = params.get(PARAMS[1]) {
            match whole(value) {
                Some(ms) => budget.time = Some(Duration::from_millis(ms)),
                None => self.problem(
                    &join(key, PARAMS[1]),
                    format!(
                        "{} is not a time in milliseconds; {}",
                        describe(value),
                        MS_ARE
                    ),
                ),
            }
        }
    }
}

const BYTES_ARE: &str = "countBudgetBytes must be a whole number of bytes, 0 or more (4294967296 \
                         is the default, 4 GiB)";
const MS_ARE: &str = "countBudgetMs must be a whole number of milliseconds, 0 or more (1000 is \
                      one second; leave it out for no time limit)";

fn whole(value: &Value) -> Option<u64> {
    match value {
        Value::Integer(n) => u64::try_from(*n).ok(),
        _ => None,
    }
}

impl GgConfig {
    /// Applies the environment's budget variables (`FSGATE_COUNT_BUDGET_BYTES`,
    /// `FSGATE_COUNT_BUDGET_MS`) as `env` gives them, over what the file said; a value that is
    /// not a whole number of 0 or more refuses, naming every bad variable.
    pub fn apply_env(&mut self, env: &dyn Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        let mut problems = Vec::new();
        for (var, what) in [(ENV_BYTES, BYTES_ARE), (ENV_MS, MS_ARE)] {
            let Some(raw) = env(var) else { continue };
            match raw.trim().parse::<u64>() {
                Ok(n) if var == ENV_BYTES => self.count_budget.bytes = n,
                Ok(n) => self.count_budget.time = Some(Duration::from_millis(n)),
                Err(_) => problems.push(Problem {
                    key: var.to_string(),
                    message: format!(
                        "{raw:?} is not a whole number 0 or more; {}",
                        what.replacen(PARAMS[usize::from(var == ENV_MS)], var, 1)
                    ),
                }),
            }
        }
        ConfigError::unless_empty("the environment", problems, ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_params_set_bytes_and_time_and_leave_the_defaults_otherwise() {
        let config = GgConfig::parse(
            "[capabilities.read-file]\nparams = { lineCap = 9, countBudgetBytes = 0, \
             countBudgetMs = 1000 }\n",
            "t",
        )
        .unwrap();
        assert_eq!(
            config.count_budget,
            CountBudget {
                bytes: 0,
                time: Some(Duration::from_secs(1))
            }
        );
        let plain = GgConfig::parse("[capabilities.read-file]\nparams = { lineCap = 9 }\n", "t");
        assert_eq!(plain.unwrap().count_budget, CountBudget::default());
    }

    #[test]
    fn bad_budget_params_are_named_with_every_other_problem() {
        let err = GgConfig::parse(
            "[capabilities.read-file]\nparams = { lineCap = 0, countBudgetBytes = -1, \
             countBudgetMs = \"1s\" }\n",
            "cfg.toml",
        )
        .unwrap_err();
        insta::assert_snapshot!(err.to_string(), @r#"
        configuration cfg.toml refused: 3 problems
          - capabilities.read-file.params.lineCap: 0 is not a line count; lineCap must be a whole number of lines, 1 or more
          - capabilities.read-file.params.countBudgetBytes: -1 is not a byte count; countBudgetBytes must be a whole number of bytes, 0 or more (4294967296 is the default, 4 GiB)
          - capabilities.read-file.params.countBudgetMs: "1s" is not a time in milliseconds; countBudgetMs must be a whole number of milliseconds, 0 or more (1000 is one second; leave it out for no time limit)
        "#);
    }

    #[test]
    fn the_environment_overrides_the_file_and_bad_values_refuse() {
        let mut config = GgConfig::parse(
            "[capabilities.read-file]\nparams = { lineCap = 9, countBudgetMs = 5 }\n",
            "t",
        )
        .unwrap();
        let env = |k: &str| (k == ENV_MS).then(|| " 1000 ".to_string());
        config.apply_env(&env).unwrap();
        assert_eq!(config.count_budget.time, Some(Duration::from_secs(1)));
        let bad = |k: &str| match k {
            ENV_BYTES => Some("4GiB".to_string()),
            _ => Some("-5".to_string()),
        };
        let err = config.apply_env(&bad).unwrap_err();
        insta::assert_snapshot!(err.to_string(), @r#"
        configuration the environment refused: 2 problems
          - FSGATE_COUNT_BUDGET_BYTES: "4GiB" is not a whole number 0 or more; FSGATE_COUNT_BUDGET_BYTES must be a whole number of bytes, 0 or more (4294967296 is the default, 4 GiB)
          - FSGATE_COUNT_BUDGET_MS: "-5" is not a whole number 0 or more; FSGATE_COUNT_BUDGET_MS must be a whole number of milliseconds, 0 or more (1000 is one second; leave it out for no time limit)
        "#);
    }
}
