//! The system-prompt fragment: one section per group of offered tools. The Reading Files section
//! states the cap only under default-cap (with this configuration's lineCap), and says reading
//! images is unsupported when the model cannot see them.

use super::Gg;
use crate::config::gg::ReadMode;

pub(super) fn render(gg: &Gg) -> String {
    let mut out = String::from(
        "# Filesystem tools\n\nPaths are relative to the working directory, or absolute.\n",
    );
    if gg.offers("read_file") {
        out.push_str("\n## Reading Files\n\n");
        match gg.read_mode {
            ReadMode::DefaultCap => out.push_str(&format!(
                "read_file returns at most {cap} lines per call unless you pass limit. To read \
                 further, pass offset (the 1-based line to start from) and limit; a result that \
                 shows only part of a file ends with a line like [showing lines 1-{cap} of N; \
                 continue with offset: {next}].\n",
                cap = gg.line_cap,
                next = gg.line_cap + 1
            )),
            ReadMode::Unlimited => out.push_str(
                "read_file returns the whole file, or from offset to its end, unless you pass \
                 limit. offset is the 1-based line to start from; a result that shows only part \
                 of a file ends with a line saying which lines it shows and where to continue.\n",
            ),
        }
        if gg.sees_images() {
            out.push_str("read_file shows PNG, JPEG, GIF and WebP images as images.\n");
        } else {
            out.push_str(
                "Reading images is unsupported: read_file describes an image file (its format, \
                 size and dimensions) instead of showing it.\n",
            );
        }
    }
    if gg.offers("write_file") || gg.offers("edit_file") {
        out.push_str("\n## Changing Files\n\n");
        if gg.offers("write_file") {
            out.push_str("write_file creates a file or replaces its whole content.\n");
        }
        if gg.offers("edit_file") {
            out.push_str(
                "edit_file replaces one exact, unique occurrence of old_string. If it is not \
                 found, re-read the file; if it occurs several times, add surrounding lines.\n",
            );
        }
    }
    if gg.offers("list_dir") || gg.offers("tree") {
        out.push_str(
            "\n## Listing Directories\n\nlist_dir lists one directory's entries; tree shows the \
             tree beneath a directory to a depth, leaving out what ignore files exclude.\n",
        );
    }
    if gg.offers("search") {
        out.push_str(
            "\n## Searching\n\nsearch finds lines matching a Rust regular expression and returns \
             them as path:line:text. A list as long as its limit may have been cut: narrow the \
             query or the path.\n",
        );
    }
    out
}
