// The official TypeScript MCP SDK client drives `fsgate serve` over stdio: the tool list, every
// tool of the default profile, errors, progress on a long search, and its cancellation.

import { after, before, describe, it } from 'node:test';

import { connectStdio, makeBigTree, requireBinary, smallWorkspace, TEST_TIMEOUT_MS } from './lib/harness.mjs';
import { defaultProfileScenarios, picoclawSearchProgressAndCancel } from './lib/scenarios.mjs';

describe('TypeScript SDK over stdio', { timeout: TEST_TIMEOUT_MS }, () => {
  let ws;
  let server;

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

  defaultProfileScenarios(it, () => server, () => ws.root);
});

// The same progress and cancellation through another profile's search (picoclaw's search_files),
// so the transport's side of both is covered whatever the default profile's search does.
describe('TypeScript SDK over stdio, picoclaw profile', { timeout: TEST_TIMEOUT_MS }, () => {
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
    await picoclawSearchProgressAndCancel(server);
  });
});
