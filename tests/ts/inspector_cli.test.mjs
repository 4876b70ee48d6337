// The MCP Inspector's CLI mode (`inspector --cli`, the version pinned in package-lock.json)
// against `fsgate serve` over stdio and over streamable HTTP: tools/list, and tools/call of every
// tool of the default profile with --tool-arg key=value arguments.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { BIN, requireBinary, schemaToolNames, smallWorkspace, startHttpServer, tempDir, TEST_TIMEOUT_MS } from './lib/harness.mjs';

const require = createRequire(import.meta.url);
const INSPECTOR_PKG = require.resolve('@modelcontextprotocol/inspector/package.json');
const INSPECTOR = path.join(path.dirname(INSPECTOR_PKG), JSON.parse(fs.readFileSync(INSPECTOR_PKG, 'utf8')).bin.inspector);

const TOKEN = 'inspector-token-51c2';

let home;

/** Runs `inspector --cli ...args`; resolves with { status, stdout, stderr, json }. */
function inspector(args) {
  return new Promise((resolve, reject) => {
    // Its own HOME, so the inspector's catalog and credential store stay out of the user's.
    const child = spawn(process.execPath, [INSPECTOR, '--cli', ...args], {
      env: { ...process.env, HOME: home.dir, MCP_CATALOG_PATH: path.join(home.dir, 'mcp.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      let json;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ status, stdout, stderr, json });
    });
  });
}

/** The text of a tools/call result the inspector printed, after checking it succeeded. */
function callText(run, what) {
  assert.equal(run.status, 0, `${what}: exit ${run.status}\n${run.stdout}\n${run.stderr}`);
  assert.ok(run.json, `${what}: not JSON: ${run.stdout}`);
  assert.notEqual(run.json.isError, true, `${what}: ${JSON.stringify(run.json)}`);
  return run.json.content.map((c) => c.text).join('\n');
}

/** tools/list then tools/call of every tool, against `target` (server command or URL args). */
async function everyTool(target, root, prefix) {
  const listed = await inspector([...target, '--method', 'tools/list']);
  assert.equal(listed.status, 0, listed.stderr);
  assert.deepEqual(
    listed.json.tools.map((t) => t.name),
    schemaToolNames(),
  );
  const call = (tool, ...kv) =>
    inspector([...target, '--method', 'tools/call', '--tool-name', tool, ...kv.flatMap((a) => ['--tool-arg', a])]).then((run) =>
      callText(run, `${tool} ${kv.join(' ')}`),
    );
  const file = `${prefix}/hello.txt`;
  await call('write_file', `path=${file}`, 'content=hello inspector');
  assert.equal(fs.readFileSync(path.join(root, file), 'utf8'), 'hello inspector');
  assert.equal(await call('read_file', `path=${file}`), 'hello inspector');
  assert.match(await call('read_file', 'path=README.md', 'offset=3', 'limit=1'), /^A small workspace\.\n\[showing lines 3-3 of 3\]/);
  await call('edit_file', `path=${file}`, 'old_string=inspector', 'new_string=there');
  assert.equal(fs.readFileSync(path.join(root, file), 'utf8'), 'hello there');
  assert.deepEqual((await call('list_dir', `path=${prefix}`)).split('\n'), ['hello.txt']);
  const tree = (await call('tree', 'depth=1')).split('\n');
  assert.ok(tree.some((line) => line.startsWith(`${prefix}/`)), tree.join('\n'));
  assert.equal(await call('search', 'query=hel+o there', `path=${prefix}`, 'limit=5'), `${file}:1:hello there`);
}

describe('MCP Inspector CLI', { timeout: TEST_TIMEOUT_MS }, () => {
  let ws;
  let server;

  before(async () => {
    requireBinary();
    home = tempDir('fsgate-inspector-home-');
    ws = smallWorkspace();
    server = await startHttpServer(ws.root, { token: TOKEN });
  });

  after(async () => {
    await server?.stop();
    ws?.remove();
    home?.remove();
  });

  it('lists and calls every tool over stdio', async () => {
    await everyTool([BIN, 'serve', '--root', ws.root], ws.root, 'stdio');
  });

  it('lists and calls every tool over streamable HTTP with the bearer token', async () => {
    const target = [server.url, '--transport', 'http', '--header', `Authorization: Bearer ${TOKEN}`];
    await everyTool(target, ws.root, 'http');
  });

  it('is refused over HTTP without the token', async () => {
    for (const headers of [[], ['--header', 'Authorization: Bearer wrong']]) {
      const run = await inspector([server.url, '--transport', 'http', ...headers, '--stored-auth-only', '--method', 'tools/list']);
      assert.notEqual(run.status, 0, `the inspector listed tools without the token: ${run.stdout}`);
      assert.equal(run.json?.tools, undefined);
      assert.match(run.stdout + run.stderr, /auth|401/i);
    }
  });
});
