// Child processes of the Firefox end-to-end script: installing firefox-esr, the sbkit server, Firefox
// itself. Every child runs in its own process group so that stopping it also stops what it started.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function say(message: string): void {
  process.stderr.write(`firefox-e2e: ${message}\n`);
}

/** The absolute path of an executable found on PATH, or undefined. */
function which(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The Firefox binary: $FIREFOX, or `firefox-esr` on PATH, installing the Debian package `firefox-esr`
 * with apt-get when it is missing (as root, or through `sudo -n`).
 */
export function ensureFirefox(): string {
  const explicit = process.env.FIREFOX;
  if (explicit !== undefined && explicit !== '') return explicit;
  const found = which('firefox-esr');
  if (found !== undefined) return found;
  say('firefox-esr is not installed: installing the Debian package with apt-get');
  const asRoot = process.getuid?.() === 0;
  const prefix = asRoot ? [] : which('sudo') !== undefined ? ['sudo', '-n'] : undefined;
  if (prefix === undefined) {
    throw new Error(
      'firefox-esr is missing and this user cannot run apt-get (not root, no sudo): run `apt-get install -y firefox-esr` as root',
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['apt-get', 'update'],
    ['apt-get', 'install', '-y', '--no-install-recommends', 'firefox-esr'],
  ]) {
    const command = [...prefix, ...args];
    say(`running: ${command.join(' ')}`);
    // apt-get's own output goes to stderr so that stdout keeps only the report.
    const result = spawnSync(command[0] as string, command.slice(1), { env, stdio: ['ignore', 2, 2] });
    if (result.error !== undefined) throw new Error(`${command.join(' ')}: ${result.error.message}`);
    if (result.status !== 0) throw new Error(`${command.join(' ')} exited with status ${result.status}`);
  }
  const installed = which('firefox-esr');
  if (installed === undefined) throw new Error('apt-get installed firefox-esr but it is not on PATH');
  say(`installed ${installed}`);
  return installed;
}

/** `firefox-esr --version`, e.g. "Mozilla Firefox 153.7.0esr". */
export function firefoxVersion(binary: string): string {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return (result.stdout ?? '').trim() || `unknown (${binary} --version failed)`;
}

/** Resolves when `child` has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Stops a child started with `detached: true` and its whole process group: SIGTERM, then SIGKILL. */
export async function stopGroup(child: ChildProcess, graceMs = 5000): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is gone
    }
  };
  if (child.exitCode === null && child.signalCode === null) {
    signalGroup('SIGTERM');
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
    if ((await Promise.race([exited(child).then(() => 'exited' as const), timer])) === 'timeout') signalGroup('SIGKILL');
    await exited(child);
  }
  // Leftovers of the group (e.g. Firefox's content processes) once the leader is gone.
  signalGroup('SIGKILL');
}

export interface SbkitServer {
  url: string;
  child: ChildProcess;
  /** Everything the server printed on stderr. */
  output: string[];
}

/** Starts `node dist/cli/bin.js serve --port 0 [extraArgs]` in `repo` and reads its URL from stderr. */
export function startSbkitServer(repo: string, extraArgs: readonly string[] = [], timeoutMs = 60_000): Promise<SbkitServer> {
  const child = spawn(process.execPath, [join(repo, 'dist', 'cli', 'bin.js'), 'serve', '--port', '0', ...extraArgs], {
    cwd: repo,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      void stopGroup(child);
      reject(new Error(`sbkit serve printed no "listening on" line within ${timeoutMs / 1000} s: ${output.join(' | ')}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        output.push(line);
        const match = /listening on (http:\/\/\S+)/.exec(line);
        if (match !== null) {
          clearTimeout(timer);
          resolve({ url: (match[1] as string).replace(/\/$/, ''), child, output });
        }
      }
    };
    child.stderr?.on('data', onData);
    child.stdout?.on('data', onData);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`sbkit serve exited (${signal ?? code}) before listening: ${output.join(' | ')}`));
    });
  });
}
