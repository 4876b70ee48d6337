// Shared machinery of the TypeScript interoperability tests: the fsgate binary under test, fresh
// workspaces, the server started over stdio or streamable HTTP, and its JSON log read back.
//
// The binary is $FSGATE_BIN, by default target/release/fsgate of this repository.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, '..', '..', '..');
export const BIN = process.env.FSGATE_BIN || path.join(REPO, 'target', 'release', 'fsgate');

/** How long one test may take before it fails instead of hanging the suite. */
export const TEST_TIMEOUT_MS = Number(process.env.FSGATE_TS_TEST_TIMEOUT_MS || 180_000);

export function requireBinary() {
  assert.ok(
    fs.existsSync(BIN),
    `fsgate binary not found at ${BIN}; build it with \`cargo build --release -p fsgate\` or set FSGATE_BIN`,
  );
}

/** The names of the tools `fsgate schema` lists for the default profile. */
export function schemaToolNames() {
  const out = spawnSync(BIN, ['schema'], { encoding: 'utf8' });
  assert.equal(out.status, 0, `fsgate schema failed: ${out.stderr}`);
  return JSON.parse(out.stdout).map((t) => t.name);
}

/** A fresh directory under the system's temporary folder; `remove()` deletes it. */
export function tempDir(prefix = 'fsgate-ts-') {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A workspace with a few small files: `root` is the folder served. */
export function smallWorkspace() {
  const t = tempDir();
  const root = path.join(t.dir, 'ws');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.writeFileSync(path.join(root, 'README.md'), '# demo\n\nA small workspace.\n');
  fs.writeFileSync(path.join(root, 'src', 'main.rs'), 'fn main() {\n    println!("hello");\n}\n');
  return { ...t, root };
}

// A query that never matches the generated tree and that the regex engine cannot answer from a
// literal scan alone: a Unicode word boundary over text holding non-ASCII letters keeps the fast
// DFA out, so every line costs real work and the whole scan takes seconds, not milliseconds.
export const SLOW_QUERY = '\\b[a-z]+q[a-z]+[0-9]\\b';
const BIG_LINE = 'the quick brown fox jumps over the lazy dog 0123456789 lorém ipsum dolor sit amet\n';

/** Writes `files` files of `lines` lines each under root/big, in 40 folders. */
export function makeBigTree(root, files = Number(process.env.FSGATE_TS_BIG_FILES || 2000), lines = 400) {
  const body = BIG_LINE.repeat(lines);
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, 'big', `d${String(i % 40).padStart(2, '0')}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `f${String(i).padStart(5, '0')}.txt`), body);
  }
  return files;
}

/**
 * Collects what the server writes to stderr: JSON log events (`--log-format json`) into
 * `events`, every other line into `lines`.
 */
export class ServerLog {
  constructor(stream) {
    this.events = [];
    this.lines = [];
    this.waiters = [];
    const rl = readline.createInterface({ input: stream });
    rl.on('line', (line) => {
      let event = null;
      try {
        event = JSON.parse(line);
      } catch {
        this.lines.push(line);
      }
      if (event) this.events.push(event);
      this.waiters = this.waiters.filter((w) => !w());
    });
  }

  /** The `call` events (one per tool call: tool, duration_ms, outcome, code). */
  calls(tool) {
    return this.events
      .map((e) => e.fields ?? {})
      .filter((f) => f.message === 'call' && (tool === undefined || f.tool === tool));
  }

  /** Resolves with the first value `probe()` returns that is not undefined. */
  waitFor(probe, what, timeoutMs = 15_000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr so far:\n${this.text()}`));
      }, timeoutMs);
      const check = () => {
        const value = probe();
        if (value === undefined) return false;
        clearTimeout(timer);
        resolve(value);
        return true;
      };
      if (!check()) this.waiters.push(check);
    });
  }

  /** Waits for the `n`th (0-based) call event of `tool`. */
  nthCall(tool, n, timeoutMs) {
    return this.waitFor(() => this.calls(tool)[n], `log event #${n + 1} of ${tool}`, timeoutMs);
  }

  text() {
    return [...this.lines, ...this.events.map((e) => JSON.stringify(e))].join('\n').slice(-4000);
  }
}

const CLIENT_INFO = { name: 'fsgate-ts-interop', version: '1.0.0' };

/** Starts `fsgate serve --root root` over stdio with an SDK client connected to it. */
export async function connectStdio(root, extra = []) {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ['--log-format', 'json', 'serve', '--root', root, ...extra],
    env: { ...getDefaultEnvironment(), FSGATE_LOG: 'info' },
    // Not the root: relative paths must resolve against --root.
    cwd: path.dirname(root),
    stderr: 'pipe',
  });
  const log = new ServerLog(transport.stderr);
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  return { client, log, close: () => client.close() };
}

/**
 * Starts `fsgate serve --http 127.0.0.1:0 --root root` (with a token file when `token` is given)
 * and resolves once it says where it listens.
 */
export async function startHttpServer(root, { token, extra = [], env = {} } = {}) {
  const args = ['--log-format', 'json', 'serve', '--root', root, '--http', '127.0.0.1:0', ...extra];
  if (token !== undefined) {
    const tokenFile = path.join(path.dirname(root), 'token.txt');
    fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    args.push('--token-file', tokenFile);
  }
  const proc = spawn(BIN, args, {
    cwd: path.dirname(root),
    env: { ...process.env, FSGATE_LOG: 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log = new ServerLog(proc.stderr);
  const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
  };
  try {
    const url = await Promise.race([
      log.waitFor(
        () => log.lines.map((l) => /listening on (http:\/\/\S+)/.exec(l)?.[1]).find(Boolean),
        'the server to say where it listens',
        15_000,
      ),
      exited.then(({ code }) => {
        throw new Error(`the server exited (${code}) before listening:\n${log.text()}`);
      }),
    ]);
    return { url, log, proc, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** An SDK client connected over streamable HTTP, sending `Authorization: Bearer token`. */
export async function connectHttp(url, token) {
  const headers = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** The text blocks of a tool result, joined by newlines. */
export function textOf(result) {
  return result.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
