// Generates the npm packages of a release from the templates beside this file:
//   node packaging/npm/stage.mjs OUT_DIR VERSION PLATFORM=BINARY...
// writes OUT_DIR/fsgate (the launcher package, every platform package an optional dependency of
// the same version) and OUT_DIR/PLATFORM for each PLATFORM=BINARY given (PLATFORM as
// process.platform-process.arch: linux-x64, linux-arm64, darwin-x64, darwin-arm64), each with
// the repository's README and licences. scripts/release runs it; `npm pack` each folder.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");

// Every platform a release builds, with the npm `os`/`cpu` (and `libc`) that select it.
const PLATFORMS = {
  "linux-x64": { os: "linux", cpu: "x64", libc: "glibc" },
  "linux-arm64": { os: "linux", cpu: "arm64", libc: "glibc" },
  "darwin-x64": { os: "darwin", cpu: "x64" },
  "darwin-arm64": { os: "darwin", cpu: "arm64" },
};

const [out, version, ...binaries] = process.argv.slice(2);
if (!out || !/^\d+\.\d+\.\d+/.test(version || "")) {
  console.error("usage: node stage.mjs OUT_DIR VERSION PLATFORM=BINARY...");
  process.exit(2);
}

function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

function writePackage(dir, manifest, extraFiles) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const name of ["LICENSE-MIT", "LICENSE-APACHE"]) {
    copyFileSync(join(repo, name), join(dir, name));
  }
  for (const [from, to] of extraFiles) {
    copyFileSync(from, join(dir, to));
  }
}

const main = readJson(join(here, "fsgate", "package.json"));
main.version = version;
main.optionalDependencies = Object.fromEntries(
  Object.keys(PLATFORMS).map((p) => [`@fsgate/${p}`, version]),
);
writePackage(join(out, "fsgate"), main, [
  [join(repo, "README.md"), "README.md"],
  [join(here, "fsgate", "bin", "fsgate.js"), "bin/fsgate.js"],
]);
chmodSync(join(out, "fsgate", "bin", "fsgate.js"), 0o755);

const template = readJson(join(here, "platform", "package.json"));
const readme = readFileSync(join(here, "platform", "README.md"), "utf8");
for (const spec of binaries) {
  const [platform, binary] = spec.split("=");
  const sel = PLATFORMS[platform];
  if (!sel || !binary) {
    console.error(`stage.mjs: ${spec} is not PLATFORM=BINARY with PLATFORM one of ${Object.keys(PLATFORMS).join(", ")}`);
    process.exit(2);
  }
  const manifest = {
    ...template,
    name: `@fsgate/${platform}`,
    version,
    description: template.description.replaceAll("PLATFORM", platform),
    os: [sel.os],
    cpu: [sel.cpu],
  };
  if (sel.libc) {
    manifest.libc = [sel.libc];
  }
  const dir = join(out, platform);
  writePackage(dir, manifest, [[binary, "bin/fsgate"]]);
  writeFileSync(join(dir, "README.md"), readme.replaceAll("PLATFORM", platform));
  chmodSync(join(dir, "bin", "fsgate"), 0o755);
}
