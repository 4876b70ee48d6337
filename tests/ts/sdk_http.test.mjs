// The official TypeScript MCP SDK client drives `fsgate serve --http` (streamable HTTP) behind a
// bearer token: the tool list, every tool of the default profile, progress and cancellation, and
// the refusals — no or wrong token (401), a foreign browser Origin (403), and a non-loopback
// address without a token (the server will not start).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';

import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {
  BIN,
  connectHttp,
  makeBigTree,
  requireBinary,
  smallWorkspace,
  startHttpServer,
  TEST_TIMEOUT_MS,
} from './lib/harness.mjs';
import { defaultProfileScenarios, picoclawSearchProgressAndCancel } from './lib/scenarios.mjs';

const TOKEN = 'ts-interop-token-7f3a';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A bare initialize POST with the given extra headers; resolves with the response. */
function rawInitialize(url, headers) {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: INITIALIZE,
  });
}

describe('TypeScript SDK over streamable HTTP', { timeout: TEST_TIMEOUT_MS }, () => {
  let ws;
  let server;
  let session;

  before(async () => {
    requireBinary();
    ws = smallWorkspace();
    makeBigTree(ws.root);
    server = await startHttpServer(ws.root, {
      token: TOKEN,
      extra: ['--allow-origin', 'https://console.example.com'],
    });
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    session = await connectHttp(server.url, TOKEN);
  });

  after(async () => {
    await session?.close();
    await server?.stop();
    ws?.remove();
  });

  defaultProfileScenarios(it, () => ({ client: session.client, log: server.log }), () => ws.root);

  it('serves a second session side by side', async () => {
    const other = await connectHttp(server.url, TOKEN);
    try {
      const result = await other.client.callTool({ name: 'read_file', arguments: { path: 'README.md' } });
      assert.equal(result.content[0].text, '# demo\n\nA small workspace.\n');
    } finally {
      await other.close();
    }
  });

  it('refuses a request without the token or with a wrong one (401)', async () => {
    for (const headers of [{}, { Authorization: 'Bearer wrong-token' }, { Authorization: TOKEN }]) {
      const res = await rawInitialize(server.url, headers);
      assert.equal(res.status, 401, `headers ${JSON.stringify(headers)}`);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      await res.body?.cancel();
    }
    // The SDK client itself is turned away with the status.
    const refused = (e) => e instanceof StreamableHTTPError && e.code === 401;
    await assert.rejects(connectHttp(server.url), refused);
    await assert.rejects(connectHttp(server.url, 'wrong-token'), refused);
  });

  it('accepts the token, and refuses browser origins that are not loopback or allowed (403)', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const ok = await rawInitialize(server.url, auth);
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    for (const origin of ['http://localhost:5173', 'https://console.example.com']) {
      const res = await rawInitialize(server.url, { ...auth, Origin: origin });
      assert.equal(res.status, 200, `Origin ${origin}`);
      await res.body?.cancel();
    }
    const foreign = await rawInitialize(server.url, { ...auth, Origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
  });

  it('will not serve a non-loopback address without a token', () => {
    const env = { ...process.env };
    delete env.FSGATE_TOKEN;
    // Refused before anything is bound.
    const run = spawnSync(BIN, ['serve', '--root', ws.root, '--http', '0.0.0.0:0'], {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 15_000,
    });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /bearer token is required/);
  });
});

// The same progress and cancellation through another profile's search (picoclaw's search_files),
// so the HTTP transport's side of both is covered whatever the default profile's search does.
describe('TypeScript SDK over streamable HTTP, picoclaw profile', { timeout: TEST_TIMEOUT_MS }, () => {
  let ws;
  let server;
  let session;

  before(async () => {
    requireBinary();
    ws = smallWorkspace();
    makeBigTree(ws.root);
    server = await startHttpServer(ws.root, { token: TOKEN, extra: ['--profile', 'picoclaw'] });
    session = await connectHttp(server.url, TOKEN);
  });

  after(async () => {
    await session?.close();
    await server?.stop();
    ws?.remove();
  });

  it('reports progress on search_files and stops it when cancelled', async () => {
    await picoclawSearchProgressAndCancel({ client: session.client, log: server.log });
  });
});
