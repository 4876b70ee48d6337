//! Text helpers shared by the operations: line arithmetic over raw bytes, the edit matcher, and
//! credential redaction with the mapping of redacted text back to the raw bytes, and the escaped
//! form names and paths are shown in.

pub mod encoding;
pub mod lines;
pub mod matcher;
pub mod names;
pub mod redact;
pub mod restore;

/// `n` with its thousands separated by commas: `2,458`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(2458), "2,458");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
