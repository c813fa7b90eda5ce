// The built `sbkit` command writing into a pipe whose reader went away, as `sbkit status | head -1` or
// `sbkit check --stdin < urls | grep -m1 UNSAFE` leave it: every command ends quietly with status 0
// for what was written, never with a stack trace. Real processes, real pipes, an sbkit server on loopback.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { run } from './run.ts';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createServer, demoCatalog, type SafeBrowsingServer } from '../../src/server/index.ts';
import type { ServerStatus } from '../../src/server/web/status.ts';

const BIN = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
/** How long one run may take on a loaded machine. */
const RUN_BOUND_MS = 10_000;

/**
 * A status with more lists than a pipe holds (64 KiB on Linux): `status` is still writing when the
 * reader of its first line has gone, every time.
 */
const LARGE_STATUS: Partial<ServerStatus> = {
  version: '1.2.3',
  serving: 'sbkit.json',
  uptimeSeconds: 5,
  lists: Array.from({ length: 2000 }, (_, i) => ({
    name: `list-${i}`,
    version: 'abcdef0123456789',
    entries: i,
    publishedAt: '2026-01-01T00:00:00.000Z',
    ageSeconds: 60,
  })) as ServerStatus['lists'],
  requests: { answered: 0, refused: 0, failed: 0, perMinute: [] },
  loadControl: null,
};

let statusUrl: string;
const statusServer = createHttpServer((_request, response) =>
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(LARGE_STATUS)),
);
let sbkit: SafeBrowsingServer;
let sbkitUrl: string;
let dir: string;
before(async () => {
  await new Promise<void>((resolve) => statusServer.listen(0, '127.0.0.1', resolve));
  statusUrl = `http://127.0.0.1:${(statusServer.address() as AddressInfo).port}`;
  sbkit = createServer({ catalog: demoCatalog(), host: '127.0.0.1', port: 0 });
  sbkitUrl = await sbkit.listen();
  dir = await mkdtemp(join(tmpdir(), 'sbkit-epipe-'));
  // A local database for `sbkit lists` to show (it refuses a folder that holds none).
  assert.equal((await run(['update', '--server', sbkitUrl, '--data', dir])).status, 0);
});
after(async () => {
  await new Promise((resolve) => statusServer.close(resolve));
  await sbkit.close();
  await rm(dir, { recursive: true, force: true });
});

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Resolves to the process's end, or fails after RUN_BOUND_MS (killing it). */
function ended(child: ReturnType<typeof spawn>, what: string, output: { stdout: string; stderr: string }): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what}: still running after ${RUN_BOUND_MS} ms`));
    }, RUN_BOUND_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      // Standard error is read to its end: what the process wrote last is in it.
      if (child.stderr === null || child.stderr.readableEnded) resolve({ code, ...output });
      else child.stderr.once('end', () => resolve({ code, ...output }));
    });
  });
}

/** `sbkit ...args` with its standard output's reader gone before it writes anything. */
async function intoClosedPipe(args: string[]): Promise<Ended> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  const output = { stdout: '', stderr: '' };
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  return ended(child, args.join(' '), output);
}

/** `sbkit ...args | head -n 1` in a shell; `status` is the CLI's own exit status, which the shell reports on standard error. */
async function intoHead(args: string[]): Promise<{ status: string; stdout: string; stderr: string }> {
  const quoted = [process.execPath, BIN, ...args].map((word) => `'${word}'`).join(' ');
  const child = spawn('/bin/sh', ['-c', `{ ${quoted}; echo "exit status $?" >&2; } | head -n 1`], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const { stdout, stderr } = await ended(child, `${args.join(' ')} | head -n 1`, output);
  const status = /^exit status (\d+)\n$/m.exec(stderr)?.[1] ?? 'none';
  return { status, stdout, stderr: stderr.replace(/^exit status \d+\n/m, '') };
}

describe('sbkit writing into a pipe whose reader has gone', () => {
  it('status | head -n 1: the first line, then status 0 and nothing on standard error, every time', async () => {
    const runs = await Promise.all(Array.from({ length: 6 }, () => intoHead(['status', '--server', statusUrl])));
    for (const { status, stdout, stderr } of runs) {
      assert.match(stdout, /^sbkit 1\.2\.3 at http:\/\/127\.0\.0\.1:\d+, serving sbkit\.json, up 5 s\n$/);
      assert.equal(stderr, '');
      assert.equal(status, '0');
    }
  });

  it('every command: status 0 and nothing on standard error when nobody reads what it writes', async () => {
    const commands = [
      ['status', '--server', statusUrl],
      ['expressions', 'http://a.b.example/1/2?q'],
      ['lists', '--data', dir],
      ['check', '--server', sbkitUrl, 'http://safe.example/'],
      ['--help'],
      ['serve', '--help'],
    ];
    const runs = await Promise.all(commands.map((args) => intoClosedPipe(args)));
    runs.forEach(({ code, stderr }, i) => {
      assert.equal(stderr, '', commands[i]!.join(' '));
      assert.equal(code, 0, commands[i]!.join(' '));
    });
  });

  it('check --stdin: ends quietly with 0 once its reader has taken the first line and gone', async () => {
    const child = spawn(process.execPath, [BIN, 'check', '--server', sbkitUrl, '--stdin'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const output = { stdout: '', stderr: '' };
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    const end = ended(child, 'check --stdin', output);
    // A batch of URLs is checked, and printed, once 100 have come (check-run.ts).
    const batch = (from: number) => Array.from({ length: 100 }, (_, i) => `http://host-${from + i}.example/\n`).join('');
    child.stdin.write(batch(0));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output.stdout += chunk.toString();
        if (output.stdout.includes('\n')) resolve();
      });
    });
    child.stdout.destroy();
    // The next batch is written after the reader went: into the closed pipe.
    child.stdin.end(batch(100));
    const { code, stdout, stderr } = await end;
    assert.match(stdout.split('\n')[0]!, /http:\/\/host-0\.example\//);
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });
});
