// The official TypeScript MCP SDK client drives `fsgate serve` over stdio: the tool list, every
// tool of the default profile, errors, progress on a long search, and its cancellation.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { connectStdio, makeBigTree, requireBinary, SLOW_QUERY, smallWorkspace, TEST_TIMEOUT_MS } from './lib/harness.mjs';
import { GG_SEARCH_CANCEL_PENDING, GG_SEARCH_PROGRESS_PENDING } from './lib/pending.mjs';
import {
  cancelLongSearch,
  checkErrors,
  checkEveryTool,
  checkProgressReports,
  checkStoppedMidway,
  checkToolList,
  longSearchWithProgress,
} from './lib/scenarios.mjs';

describe('TypeScript SDK over stdio', { timeout: TEST_TIMEOUT_MS }, () => {
  let ws;
  let server;
  let full;
  let cancelled;

  before(async () => {
    requireBinary();
    ws = smallWorkspace();
    makeBigTree(ws.root);
    server = await connectStdio(ws.root);
  });

  after(async () => {
    await server?.close();
    ws?.remove();
  });

  it('announces fsgate and lists the tools of `fsgate schema`', async () => {
    assert.equal(server.client.getServerVersion()?.name, 'fsgate');
    await checkToolList(server.client);
  });

  it('calls every tool of the default profile once', async () => {
    await checkEveryTool(server.client, ws.root);
  });

  it('reports failures as isError results and unknown tools as invalid params', async () => {
    await checkErrors(server.client);
  });

  it('runs a long search with a progress token to its result', async () => {
    full = await longSearchWithProgress(server.client, server.log);
  });

  it('sends notifications/progress during that search', { skip: GG_SEARCH_PROGRESS_PENDING ?? false }, () => {
    assert.ok(full, 'the long search did not run');
    checkProgressReports(full.reports);
  });

  it('ends a long search cancelled mid-way at once, and answers the next call', async () => {
    assert.ok(full, 'the long search did not run');
    cancelled = await cancelLongSearch(server.client, server.log, full.durationMs);
  });

  it('stops the cancelled scan part way', { skip: GG_SEARCH_CANCEL_PENDING ?? false }, () => {
    assert.ok(cancelled, 'the cancelled search did not run');
    checkStoppedMidway(cancelled, full.durationMs);
  });
});

// The same progress and cancellation through another profile's search (picoclaw's search_files),
// so the transport's side of both is covered whatever the default profile's search does.
describe('TypeScript SDK over stdio, picoclaw profile', { timeout: TEST_TIMEOUT_MS }, () => {
  const search = { name: 'search_files', arguments: { pattern: SLOW_QUERY, path: 'big' } };
  let ws;
  let server;

  before(async () => {
    requireBinary();
    ws = smallWorkspace();
    makeBigTree(ws.root);
    server = await connectStdio(ws.root, ['--profile', 'picoclaw']);
  });

  after(async () => {
    await server?.close();
    ws?.remove();
  });

  it('reports progress on search_files and stops it when cancelled', async () => {
    const full = await longSearchWithProgress(server.client, server.log, search);
    checkProgressReports(full.reports);
    const cancelled = await cancelLongSearch(server.client, server.log, full.durationMs, search);
    checkStoppedMidway(cancelled, full.durationMs);
  });
});
