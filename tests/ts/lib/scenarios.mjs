// The scenarios both transports run: every tool of the default profile called once, a long
// search that reports progress, and the same search cancelled part way through.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

import { schemaToolNames, SLOW_QUERY, sleep, textOf } from './harness.mjs';

const LONG_CALL = { timeout: 120_000 };

/** tools/list offers exactly the tools `fsgate schema` prints, each with an object schema. */
export async function checkToolList(client) {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    schemaToolNames(),
  );
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, 'object', `${tool.name}'s input schema`);
    assert.ok(tool.description.length > 20, `${tool.name} has a description`);
  }
  return tools;
}

/**
 * Calls every tool of the default profile once with valid arguments, in an order where each
 * call sees the previous one's effect on disk, and checks each result. `root` is the workspace
 * served; it holds README.md and src/main.rs (see smallWorkspace).
 */
export async function checkEveryTool(client, root) {
  const call = async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    assert.notEqual(result.isError, true, `${name} ${JSON.stringify(args)} failed: ${textOf(result)}`);
    return textOf(result);
  };
  const todo = path.join(root, 'notes', 'todo.txt');
  const steps = {
    write_file: async () => {
      await call('write_file', { path: 'notes/todo.txt', content: 'one\ntwo\n' });
      assert.equal(fs.readFileSync(todo, 'utf8'), 'one\ntwo\n');
    },
    read_file: async () => {
      assert.equal(await call('read_file', { path: 'notes/todo.txt' }), 'one\ntwo\n');
      const window = await call('read_file', { path: 'notes/todo.txt', offset: 2, limit: 1 });
      assert.ok(window.startsWith('two\n'), window);
      assert.match(window, /showing lines 2-2 of 2/);
    },
    edit_file: async () => {
      await call('edit_file', { path: 'notes/todo.txt', old_string: 'two', new_string: 'three' });
      assert.equal(fs.readFileSync(todo, 'utf8'), 'one\nthree\n');
    },
    list_dir: async () => {
      const lines = (await call('list_dir', {})).split('\n');
      for (const entry of ['README.md', 'notes/', 'src/']) assert.ok(lines.includes(entry), `${entry} in ${lines}`);
      assert.deepEqual((await call('list_dir', { path: 'src' })).split('\n'), ['main.rs']);
    },
    tree: async () => {
      const lines = (await call('tree', { path: 'notes', depth: 1 })).split('\n');
      assert.deepEqual(lines, ['todo.txt']);
      const whole = (await call('tree', {})).split('\n');
      for (const entry of ['README.md', 'notes/', '  todo.txt', 'src/', '  main.rs']) {
        assert.ok(whole.includes(entry), `${entry} in the tree:\n${whole.join('\n')}`);
      }
    },
    search: async () => {
      assert.equal(await call('search', { query: 'thre+', path: 'notes' }), 'notes/todo.txt:2:three');
      assert.equal(await call('search', { query: 'println!\\("hel+o"\\)' }), 'src/main.rs:2:    println!("hello");');
    },
  };
  // Every tool the server lists is exercised, so a tool added later cannot go untested here.
  const listed = (await client.listTools()).tools.map((t) => t.name);
  assert.deepEqual([...listed].sort(), Object.keys(steps).sort());
  for (const step of Object.values(steps)) await step();
}

/** A failed call is an isError result whose text starts with its kind; an unknown tool is a
 * JSON-RPC invalid-params error. */
export async function checkErrors(client) {
  const missing = await client.callTool({ name: 'read_file', arguments: { path: 'no/such/file.txt' } });
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /^not-found: /);
  const empty = await client.callTool({ name: 'edit_file', arguments: { path: 'README.md', old_string: '', new_string: 'x' } });
  assert.equal(empty.isError, true);
  assert.match(textOf(empty), /^invalid-argument: /);
  await assert.rejects(
    client.callTool({ name: 'no_such_tool', arguments: {} }),
    (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
  );
}

/** The slow search over root/big in gg's terms; other profiles pass their own. */
export const GG_SLOW_SEARCH = { name: 'search', arguments: { query: SLOW_QUERY, path: 'big' } };

/**
 * Runs a slow search (by default gg's) to the end with a progress token. Returns the progress
 * reports heard and how long the server says the search took.
 */
export async function longSearchWithProgress(client, log, search = GG_SLOW_SEARCH) {
  const before = log.calls(search.name).length;
  const reports = [];
  const result = await client.callTool(search, undefined, { ...LONG_CALL, onprogress: (p) => reports.push(p) });
  assert.notEqual(result.isError, true, textOf(result));
  assert.match(textOf(result), /No matches/);
  const event = await log.nthCall(search.name, before);
  return { reports, durationMs: event.duration_ms };
}

/** What MCP asks of a call's progress notifications: progress increases; total bounds it. */
export function checkProgressReports(reports) {
  assert.ok(reports.length >= 1, 'at least one notifications/progress during a multi-second search');
  for (const [i, r] of reports.entries()) {
    assert.equal(typeof r.progress, 'number');
    if (i > 0) assert.ok(r.progress > reports[i - 1].progress, `progress increases: ${JSON.stringify(reports)}`);
    if (r.total !== undefined) assert.ok(r.progress <= r.total, `progress within total: ${JSON.stringify(r)}`);
    if (r.message !== undefined) assert.equal(typeof r.message, 'string');
  }
}

/**
 * Starts the same slow search and cancels it (AbortSignal, so the SDK sends
 * notifications/cancelled) a quarter of the way through the time a full search took. Checks that
 * the call ends at once and that the server answers the next call; resolves with the server's
 * own record of the cancelled search and when it was cancelled.
 */
export async function cancelLongSearch(client, log, fullMs, search = GG_SLOW_SEARCH) {
  const before = log.calls(search.name).length;
  const controller = new AbortController();
  const started = performance.now();
  const pending = client.callTool(search, undefined, { ...LONG_CALL, signal: controller.signal });
  await sleep(fullMs / 4);
  controller.abort(new Error('the test cancels the search'));
  await assert.rejects(pending, /cancels the search/);
  const abortedAfterMs = performance.now() - started;
  assert.ok(abortedAfterMs < fullMs / 4 + 2_000, `the cancelled call ended after ${abortedAfterMs} ms`);

  const next = await client.callTool({ name: 'read_file', arguments: { path: 'README.md' } }, undefined, { timeout: 15_000 });
  assert.notEqual(next.isError, true, textOf(next));
  assert.match(textOf(next), /A small workspace\./);

  const event = await log.nthCall(search.name, before, 60_000);
  return { event, abortedAfterMs };
}

/** The server's record shows the cancelled scan stopped well before a full one would have. */
export function checkStoppedMidway({ event, abortedAfterMs }, fullMs) {
  assert.ok(
    event.duration_ms < fullMs * 0.6,
    `a search cancelled after ${abortedAfterMs.toFixed(0)} ms ran ${event.duration_ms.toFixed(0)} ms ` +
      `on the server; a full scan takes ${fullMs.toFixed(0)} ms`,
  );
}

/**
 * Registers, inside the current `describe`, the scenarios every transport runs against the
 * default profile: `connection()` returns the connected `{ client, log }` and `root()` the
 * workspace folder, both once the suite's `before` has run.
 */
export function defaultProfileScenarios(it, connection, root) {
  let full;
  let cancelled;

  it('announces fsgate and lists the tools of `fsgate schema`', async () => {
    assert.equal(connection().client.getServerVersion()?.name, 'fsgate');
    await checkToolList(connection().client);
  });

  it('calls every tool of the default profile once', async () => {
    await checkEveryTool(connection().client, root());
  });

  it('reports failures as isError results and unknown tools as invalid params', async () => {
    await checkErrors(connection().client);
  });

  it('runs a long search with a progress token to its result', async () => {
    full = await longSearchWithProgress(connection().client, connection().log);
  });

  it('sends notifications/progress during that search', () => {
    assert.ok(full, 'the long search did not run');
    checkProgressReports(full.reports);
  });

  it('ends a long search cancelled mid-way at once, and answers the next call', async () => {
    assert.ok(full, 'the long search did not run');
    cancelled = await cancelLongSearch(connection().client, connection().log, full.durationMs);
  });

  it('stops the cancelled scan part way', () => {
    assert.ok(cancelled, 'the cancelled search did not run');
    checkStoppedMidway(cancelled, full.durationMs);
  });
}

/** picoclaw's `search_files` over the slow query: what its profile's long search looks like. */
export const PICOCLAW_SLOW_SEARCH = {
  name: 'search_files',
  arguments: { pattern: SLOW_QUERY, path: 'big' },
};

/**
 * One scenario for a server started with `--profile picoclaw`: progress on a long
 * `search_files`, and the same search cancelled part way.
 */
export async function picoclawSearchProgressAndCancel({ client, log }) {
  const full = await longSearchWithProgress(client, log, PICOCLAW_SLOW_SEARCH);
  checkProgressReports(full.reports);
  const cancelled = await cancelLongSearch(client, log, full.durationMs, PICOCLAW_SLOW_SEARCH);
  checkStoppedMidway(cancelled, full.durationMs);
}
