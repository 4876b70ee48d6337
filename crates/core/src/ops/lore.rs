//! Lore libraries: folders of Markdown files with front matter, searched by regex and ranked.
