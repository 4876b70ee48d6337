"""Workspaces shared by the tree and search scenarios."""

import subprocess
from pathlib import Path

from conftest import make

# Every file holding the word NEEDLE; the ignore files themselves never hold it.
IGNORE_TREE = {
    ".gitignore": "node_modules/\n*.log\n!keep.log\n/build\n",
    ".ignore": "generated/\n",
    "node_modules/pkg/index.js": "NEEDLE in node_modules\n",
    "app.log": "NEEDLE in a log\n",
    "keep.log": "NEEDLE kept by negation\n",
    "build/out.js": "NEEDLE in build output\n",
    "generated/g.js": "NEEDLE generated\n",
    "sub/.gitignore": "local.txt\n",
    "sub/local.txt": "NEEDLE nested-ignored\n",
    "sub/code.js": "NEEDLE in sub code\n",
    "sub/build/kept.js": "NEEDLE anchored /build only at root\n",
    "secret.txt": "NEEDLE excluded by info/exclude\n",
    ".env": "NEEDLE=dotfile\n",
    ".config/settings.json": '{"k": "NEEDLE"}\n',
    "src/main.js": "const x = 1;\n// NEEDLE in source\n",
}

# Visible in both a repository and a plain directory.
VISIBLE = [
    ".config/settings.json",
    ".env",
    "keep.log",
    "src/main.js",
    "sub/build/kept.js",
    "sub/code.js",
]


def make_ignore_workspace(root: Path, repo: bool, git_init: bool = False) -> None:
    make(root, IGNORE_TREE)
    if repo:
        if git_init:
            subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
        else:
            make(root, {".git/HEAD": "ref: refs/heads/main\n", ".git/objects": None, ".git/refs/heads": None})
        make(root, {".git/info/exclude": "secret.txt\n", ".git/config": "[core]\n# NEEDLE in .git\n"})
        make(root, {".git/NEEDLE_NOTES": "NEEDLE inside .git\n"})
