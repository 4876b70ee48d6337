//! The texts of a successful write_file and edit_file.

use crate::ops::edit::EditReport;
use crate::ops::write::WriteReport;
use crate::text::matcher::Level;

pub(super) fn write_summary(shown: &str, report: &WriteReport) -> String {
    let size = format!(
        "{} ({})",
        plural(report.lines, "line"),
        plural(report.bytes, "byte")
    );
    let kept = match report.kept {
        Some(format) => format!(", written in {format} as the file was"),
        None => String::new(),
    };
    match report.previous_len {
        None => format!("Created {shown}: {size}."),
        Some(old) => format!(
            "Overwrote {shown}: {size}{kept}, replacing {}.",
            plural(old as usize, "byte")
        ),
    }
}

pub(super) fn edit_summary(shown: &str, report: &EditReport) -> String {
    let span = if report.old_lines == 1 {
        format!("line {}", report.line)
    } else {
        format!(
            "lines {}-{}",
            report.line,
            report.line + report.old_lines - 1
        )
    };
    let note = match report.level {
        Level::Exact => "",
        Level::LineEndings => {
            " (old_string matched after converting its line endings to the file's)"
        }
        Level::TrailingWhitespace => " (old_string matched ignoring trailing whitespace)",
        Level::Indentation => " (old_string matched ignoring indentation)",
        Level::Punctuation => " (old_string matched after normalising Unicode punctuation)",
    };
    let decoded = match report.decoded {
        Some(format) => format!(", written back in {}", format.encoding),
        None => String::new(),
    };
    format!(
        "Edited {shown}: replaced {span} with {}{note}{decoded}.",
        plural(report.new_lines, "line")
    )
}

fn plural(n: usize, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}
