// Every `npx sbkit …` command the README and docs/ show, run: fenced `sh` blocks and inline code alike.
// Placeholders become real things on loopback (Google's server → a local sbkit server with a key, the
// configuration file → one written here, folders → temporary ones); `serve` commands must start
// listening, the others must end with a documented exit status.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { KeyRing } from '../../src/server/ohttp/key-ring.ts';
import { createRelayApp } from '../../src/server/ohttp/relay.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { demoCatalog } from '../server/fixture.ts';
import { deleteKeys, ensureRedis, uniqueKeyPrefix } from '../server/redis-fixture.ts';
import { TestCa } from '../server/tls-fixture.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'dist', 'cli', 'bin.js');
const KEY = 'doc-test-key';

/** The commands of one Markdown text: lines of `sh` fences and inline code, that start `npx sbkit`. */
function commandsIn(markdown: string): string[] {
  const commands: string[] = [];
  const fenced = /```sh\n([\s\S]*?)```/g;
  for (const block of markdown.matchAll(fenced)) {
    for (const line of block[1]!.split('\n')) {
      const command = line
        .replace(/#.*$/, '')
        .replace(/^npm ci && /, '')
        .trim();
      if (command.startsWith('npx sbkit ')) commands.push(command);
    }
  }
  for (const span of markdown.replace(fenced, '').matchAll(/`(npx sbkit [^`]+)`/g)) commands.push(span[1]!.replace(/\s+/g, ' ').trim());
  return commands;
}

/**
 * The `curl` commands of a Markdown text's `sh` fences that ask the `sbkit serve` of 127.0.0.1:8080 (its
 * v4 requests in docs/migrating-from-v4.md), lines continued with a backslash joined.
 */
function curlCommandsIn(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.replace(/\\\n\s*/g, '').split('\n')) {
      if (line.startsWith('curl ') && line.includes('http://127.0.0.1:8080')) commands.push(line.trim());
    }
  }
  return commands;
}

/** The commands `find` finds in the README and docs/, with the file of each. */
async function documentedCommands(find = commandsIn): Promise<{ file: string; command: string }[]> {
  const files = ['README.md', ...(await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const found: { file: string; command: string }[] = [];
  for (const file of files) for (const command of find(await readFile(join(ROOT, file), 'utf8'))) found.push({ file, command });
  return found;
}

let authority: SafeBrowsingServer;
let authorityUrl: string;
let local: SafeBrowsingServer;
let localUrl: string;
let relay: FastifyInstance;
let relayBase: string;
let dir: string;
const redisPrefix = uniqueKeyPrefix();

before(async () => {
  await ensureRedis();
  dir = await mkdtemp(join(tmpdir(), 'sbkit-docs-'));
  // Stands in for Google's server, with a key as Google wants one.
  authority = createServer({ catalog: demoCatalog(), apiKeys: [KEY], port: 0 });
  authorityUrl = await authority.listen();
  // Stands in for the `sbkit serve` on 127.0.0.1:8080 that commands without --server talk to.
  local = createServer({ catalog: demoCatalog(), ohttpKeys: await KeyRing.create(), port: 0 });
  localUrl = await local.listen();
  // Stands in for the relay of docs/privacy.md on 127.0.0.1:8081.
  relay = createRelayApp({ gateway: `${localUrl}/ohttp-gateway` });
  await relay.listen({ host: '127.0.0.1', port: 0 });
  relayBase = `http://127.0.0.1:${(relay.server.address() as AddressInfo).port}`;
  // The certificate and key of docs/operations.md's `--tls-cert ./fullchain.pem --tls-key ./privkey.pem`.
  const issued = await (await TestCa.create(dir)).issue('localhost');
  await copyFile(issued.cert, join(dir, 'fullchain.pem'));
  await copyFile(issued.key, join(dir, 'privkey.pem'));
  await writeFile(join(dir, 'proxy.json'), JSON.stringify({ apiKeys: ['a-client-key'], loadControl: { burstMax: 20 } }));
  await writeFile(
    join(dir, 'sbkit.json'),
    JSON.stringify({ lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['evil.example/'] }] }] }),
  );
});
after(async () => {
  await authority.close();
  await relay.close();
  await local.close();
  await rm(dir, { recursive: true, force: true });
  await deleteKeys(redisPrefix);
});

/** The command's arguments after `npx sbkit`, placeholders made real. */
function runnable(command: string): string[] {
  let args = command
    .replace(/^npx sbkit /, '')
    .replaceAll('https://safebrowsing.googleapis.com', authorityUrl)
    .replaceAll('http://127.0.0.1:8080', localUrl)
    .replaceAll('http://127.0.0.1:8081', relayBase)
    .replaceAll('YOUR_API_KEY', KEY)
    .replace(/--upstream-key KEY\b/, `--upstream-key ${KEY}`)
    .replaceAll('sbkit.json', join(dir, 'sbkit.json'))
    .replaceAll('proxy.json', join(dir, 'proxy.json'))
    .replace(/\.\/([\w-]+)/g, (_m, name: string) => join(dir, name))
    .replace(/--port \d+/, '--port 0')
    .replace(/ URL$/, ' http://testsafebrowsing.appspot.com/s/phishing.html')
    .split(' ')
    .filter((a) => a !== '');
  const [subcommand] = args;
  // Commands with a key but no server talk to Google: here, to the stand-in with that key.
  if (args.includes('--key') && !args.includes('--server')) args = [...args, '--server', authorityUrl];
  else if (['check', 'update', 'status'].includes(subcommand!) && !args.includes('--server')) args = [...args, '--server', localUrl];
  if (subcommand === 'serve' || subcommand === 'relay') {
    if (!args.includes('--port')) args.push('--port', '0');
    if (args.includes('--redis')) args.push('--redis-prefix', redisPrefix);
  }
  return args;
}

/** Runs `sbkit …`: a serve until it listens (then stops it), anything else to its end. */
function run(args: string[]): Promise<{ status: number | null; listening: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let listening = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      if ((args[0] === 'serve' || args[0] === 'relay') && !listening && /listening on http/.test(output)) {
        listening = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, listening, output });
    });
  });
}

/** Runs a documented shell command to its end (at most 10 s), through sh as a reader pastes it. */
function runShell(command: string): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', command], { timeout: 10_000 }, (error, stdout, stderr) =>
      resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : null, output: `${stdout}${stderr}` }),
    );
  });
}

describe('the commands the documentation shows', () => {
  it('are found in the README and docs/', async () => {
    const commands = await documentedCommands();
    assert.ok(commands.length >= 10, `only ${commands.length} commands found`);
    assert.ok(
      commands.some((c) => c.command === 'npx sbkit serve'),
      "the README's set-up command",
    );
  });

  it('the curl requests of the v4 migration guide get JSON answers from a server on loopback', async () => {
    const found = await documentedCommands(curlCommandsIn);
    assert.ok(found.filter((c) => c.file === 'docs/migrating-from-v4.md').length >= 4, `${found.length} curl commands found`);
    for (const { file, command } of found) {
      const { status, output } = await runShell(command.replaceAll('http://127.0.0.1:8080', localUrl));
      assert.equal(status, 0, `${file}: ${command}\n  printed: ${output.slice(0, 600)}`);
      assert.doesNotThrow(() => JSON.parse(output), `${file}: ${command} printed no JSON: ${output.slice(0, 600)}`);
    }
  });

  it('all run as documented', { timeout: 240_000 }, async (t) => {
    for (const { file, command } of await documentedCommands()) {
      const args = runnable(command);
      const result = await run(args);
      t.diagnostic(
        `${file}: ${command} → ${args[0] === 'serve' || args[0] === 'relay' ? (result.listening ? 'listening' : 'not listening') : `exit ${result.status}`}`,
      );
      const what = `${file}: ${command}\n  ran: sbkit ${args.join(' ')}\n  printed: ${result.output.slice(0, 600)}`;
      if (args[0] === 'serve' || args[0] === 'relay') assert.ok(result.listening, `did not start listening: ${what}`);
      else assert.ok(result.status === 0 || result.status === 1, `exit status ${result.status}: ${what}`);
    }
  });
});
