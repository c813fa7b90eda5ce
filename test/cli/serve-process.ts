// `sbkit serve` (or `sbkit relay`) as a real child process of the built CLI, for the tests that need
// the command as people run it: started on a free port, resolved once it says where it listens.

import { spawn, type ChildProcess } from 'node:child_process';

const BIN = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
const children: ChildProcess[] = [];

/** A started command: where it listens, what it printed so far, its process. */
export interface Started {
  url: string;
  stderr: () => string;
  child: ChildProcess;
}

/** Starts `sbkit serve …` in a child process and resolves to the URL it listens on. */
export function serve(...args: string[]): Promise<Started> {
  return start('serve', ...args);
}

/** Starts `sbkit <command> --port 0 …` in a child process and resolves to the URL it says it listens on. */
export function start(command: string, ...args: string[]): Promise<Started> {
  return startWith({}, command, ...args);
}

/** `start`, with these environment variables besides this process's. */
export function startWith(variables: Record<string, string>, command: string, ...args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [BIN, command, '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...variables },
  });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sbkit serve did not start: ${stderr}`)), 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+?),? /.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ url: match[1]!, stderr: () => stderr, child });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sbkit serve exited with ${code}: ${stderr}`));
    });
  });
}

/** Stops a child as a service manager does (SIGTERM), and waits for it to exit. */
export async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Stops every child these helpers started that still runs (for a test file's `after`). */
export async function stopStarted(): Promise<void> {
  for (const child of children) if (child.exitCode === null) await stop(child);
}
