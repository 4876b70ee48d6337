// The console end to end in a real browser: start `fsgate console`, open its page in headless
// Chromium, make a bad edit (two bad values at once) and see both named, fix them and save, check
// the saved file with `fsgate check-config`, then run `fsgate serve --call-log` over stdio, make
// a call, and see it appear in the page's call log.
//
// Run with plain `node console.test.mjs` after `npm ci`. FSGATE_BIN names the binary (default:
// the release build); CHROMIUM the browser (default: /usr/bin/chromium).

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.FSGATE_BIN || resolve(here, '../../target/release/fsgate');
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
const TIMEOUT = 15_000;

const work = mkdtempSync(join(tmpdir(), 'fsgate-console-'));
const config = join(work, 'fsgate.toml');
const callLog = join(work, 'calls.jsonl');
const workspace = join(work, 'workspace');
mkdirSync(workspace);
writeFileSync(join(workspace, 'notes.txt'), 'alpha\nbeta\ngamma\n');

const children = [];
let context;

function step(message) {
  console.log(`- ${message}`);
}

// Starts `fsgate console` on a free port and resolves with its URL once it listens.
function startConsole() {
  const child = spawn(bin, ['console', '--config', config, '--listen', '127.0.0.1:0', '--call-log', callLog], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  return new Promise((resolvePromise, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the console did not start: ${seen}`)), TIMEOUT);
    child.stderr.on('data', (chunk) => {
      seen += chunk;
      const match = seen.match(/console at (http:\/\/\S+)\r?\n/);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`the console exited (${code}): ${seen}`)));
  });
}

// A minimal MCP client over stdio: newline-delimited JSON-RPC.
function startServer() {
  const child = spawn(bin, ['serve', '--root', workspace, '--config', config, '--call-log', callLog], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  const pending = new Map();
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (!line) continue;
      const message = JSON.parse(line);
      if (message.id !== undefined && pending.has(message.id)) {
        pending.get(message.id)(message);
        pending.delete(message.id);
      }
    }
  });
  let nextId = 1;
  const send = (message) => child.stdin.write(JSON.stringify(message) + '\n');
  const request = (method, params) => new Promise((resolvePromise, reject) => {
    const id = nextId++;
    const timer = setTimeout(() => reject(new Error(`no answer to ${method}`)), TIMEOUT);
    pending.set(id, (message) => { clearTimeout(timer); resolvePromise(message); });
    send({ jsonrpc: '2.0', id, method, params });
  });
  return { child, send, request };
}

async function main() {
  assert.ok(existsSync(bin), `no fsgate binary at ${bin}; build it with cargo build --release -p fsgate`);
  const url = await startConsole();
  step(`console at ${url}`);

  context = await chromium.launchPersistentContext(join(work, 'chromium-profile'), {
    executablePath: browserPath,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  const page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(url);

  // A fresh configuration: the Filesystem group with its five capabilities, valid as it is.
  await page.locator('#problems.ok').waitFor();
  const group = page.locator('fieldset.group[data-group="Filesystem"]');
  await group.waitFor();
  assert.equal(await group.locator('input[data-cap]').count(), 5);
  assert.equal(await page.locator('#line-cap').inputValue(), '2000');
  assert.equal(await page.locator('#config-state').textContent(), '(no file yet: saving creates it)');
  step('the editor shows the Filesystem group, the read mode and lineCap 2000');

  // Two bad values at once: a lineCap of 0 and an allowlist naming a tool gg does not have.
  await page.locator('input[name="read-mode"][value="unlimited"]').check();
  await page.locator('#cap-write-file').uncheck();
  await page.locator('#line-cap').fill('0');
  await page.locator('#add-agent').click();
  await page.locator('#agent-rows tr').last().locator('.agent-name').fill('reviewer');
  await page.locator('#agent-rows tr').last().locator('.agent-allow').fill('read_file, tree, delete_file');
  const problems = page.locator('#problem-list li');
  await page.waitForFunction(() => {
    const keys = [...document.querySelectorAll('#problem-list li')].map((li) => li.dataset.key);
    return keys.length === 2 && keys.includes('agents.reviewer.allow');
  });
  const texts = await problems.allTextContents();
  assert.match(texts[0], /^capabilities\.read-file\.params\.lineCap: 0 is not a line count/);
  assert.match(texts[1], /^agents\.reviewer\.allow: "delete_file" is not a tool/);
  assert.match(await page.locator('#problem-summary').textContent(), /refused: 2 problems$/);
  assert.equal(await page.locator('[data-key="capabilities.read-file.params.lineCap"].invalid').count(), 1);
  assert.equal(await page.locator('tr[data-key="agents.reviewer"].invalid').count(), 1);
  assert.ok(await page.locator('#save').isDisabled(), 'save is disabled while a value is bad');
  assert.ok(!existsSync(config));
  step(`both bad values are named: ${texts.join(' | ')}`);

  // Fix both, and save.
  await page.locator('#line-cap').fill('300');
  await page.locator('#agent-rows tr').last().locator('.agent-allow').fill('read_file, tree, search');
  await page.locator('#problems.ok').waitFor();
  assert.equal(await page.locator('.invalid').count(), 0);
  await page.locator('#save').click();
  await page.locator('#save-status.saved').waitFor();
  const saved = readFileSync(config, 'utf8');
  assert.match(saved, /implementation = "unlimited"/);
  assert.match(saved, /params = \{ lineCap = 300 \}/);
  assert.match(saved, /\[capabilities\.write-file\]\nenabled = false/);
  assert.match(saved, /\[agents\.reviewer\]\nallow = \["read_file", "tree", "search"\]/);
  const check = spawnSync(bin, ['check-config', config], { encoding: 'utf8' });
  assert.equal(check.status, 0, `check-config refused the saved file: ${check.stderr}`);
  const schema = spawnSync(bin, ['schema', '--config', config], { encoding: 'utf8' });
  assert.equal(schema.status, 0, schema.stderr);
  const tools = JSON.parse(schema.stdout).map((t) => t.name);
  assert.ok(!tools.includes('write_file') && tools.includes('read_file'), tools.join(','));
  step('saved; fsgate check-config accepts the file and write_file is gone from the schema');

  // A running server with a call log: its call appears in the page's table.
  const server = startServer();
  const init = await server.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'console-browser-test', version: '1' },
  });
  assert.ok(init.result, JSON.stringify(init));
  server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const called = await server.request('tools/call', { name: 'read_file', arguments: { path: 'notes.txt' } });
  assert.equal(called.result.content[0].text, 'alpha\nbeta\ngamma\n');
  const row = page.locator('#call-log tbody tr.call[data-tool="read_file"]');
  await row.waitFor();
  const cells = await row.locator('td').allTextContents();
  assert.equal(cells[1], 'read_file');
  assert.match(cells[2], /"path":"notes\.txt"/);
  assert.match(cells[3], /^\d+\.\d ms$/);
  assert.equal(cells[4], 'ok');
  assert.equal(cells[5], '17');
  assert.equal(cells[6], '~5');
  step(`the call is in the log: ${cells.join(' | ')}`);

  // A failed call shows its code.
  await server.request('tools/call', { name: 'read_file', arguments: { path: 'absent.txt' } });
  await page.locator('#call-log tbody tr.call.error').waitFor();
  assert.match(await page.locator('#call-log tbody tr.call.error td.outcome').textContent(), /^error \(not-found\)$/);
  assert.match(await page.locator('#log-totals').textContent(), /^2 calls, 1 failed/);
  step('a failed call shows its outcome and code');

  assert.deepEqual(pageErrors, [], 'the page raised no errors');
}

let failed = false;
try {
  await main();
  console.log('ok: the console works end to end in headless Chromium');
} catch (e) {
  failed = true;
  console.error('FAILED:', e);
} finally {
  if (context) await context.close().catch(() => {});
  for (const child of children) child.kill();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
