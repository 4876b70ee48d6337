#!/usr/bin/env node
// The `fsgate` command of the npm package: runs the executable that the platform package for
// this system (an optional dependency, such as @fsgate/linux-x64) carries, with this process's
// arguments, environment and standard streams, and ends as it ends (its exit code, or the signal
// that stopped it). FSGATE_BINARY names another executable to run instead.
"use strict";

const { spawn } = require("child_process");
const path = require("path");

// process.platform-process.arch -> the package that carries the executable for it.
const PACKAGES = {
  "linux-x64": "@fsgate/linux-x64",
  "linux-arm64": "@fsgate/linux-arm64",
  "darwin-x64": "@fsgate/darwin-x64",
  "darwin-arm64": "@fsgate/darwin-arm64",
};

function binaryPath() {
  if (process.env.FSGATE_BINARY) {
    return process.env.FSGATE_BINARY;
  }
  const platform = `${process.platform}-${process.arch}`;
  const pkg = PACKAGES[platform];
  if (!pkg) {
    fail(
      `unsupported-platform: fsgate has no executable for ${platform}; it is built for ` +
        `${Object.keys(PACKAGES).join(", ")}. Build it from source with ` +
        "`cargo install --path crates/cli --locked`, or set FSGATE_BINARY to an fsgate executable.",
    );
  }
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", "fsgate");
  } catch (err) {
    fail(
      `not-installed: the package ${pkg}, which carries fsgate for ${platform}, is not installed ` +
        `(${err.code || err.message}); it is an optional dependency, so an install with ` +
        "--omit=optional or --no-optional leaves it out. Install again with optional " +
        `dependencies, or add it yourself: \`npm install ${pkg}\`.`,
    );
  }
}

function fail(message) {
  process.stderr.write(`fsgate: ${message}\n`);
  process.exit(2);
}

const binary = binaryPath();
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });

// A signal sent to this process (a client stopping its server, Ctrl-C in a terminal) is passed
// on to fsgate, which ends as it would have had it been started directly.
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
const forwarders = {};
for (const signal of FORWARDED) {
  forwarders[signal] = () => child.kill(signal);
  process.on(signal, forwarders[signal]);
}

child.on("error", (err) => {
  fail(`cannot-run: ${binary} did not start (${err.code || err.message}); reinstall the fsgate package.`);
});

child.on("exit", (code, signal) => {
  for (const s of FORWARDED) {
    process.removeListener(s, forwarders[s]);
  }
  if (signal) {
    // End the way fsgate ended, so the caller sees the same signal.
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
