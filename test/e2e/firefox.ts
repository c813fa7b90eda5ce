// Firefox ESR end-to-end check: Firefox's own Safe Browsing code (the v5 `google5` provider, then the v4
// `google4` provider) downloads the lists of an unchanged `sbkit serve` and refuses Google's phishing test
// page. Not part of `npm test`: run it as `npm run test:firefox`.
//
//   npm run test:firefox                       # both protocols, embedded demo lists
//   npm run test:firefox -- --protocol v5      # one of them
//   npm run test:firefox -- --keep             # keep the logs of passing runs too
//
// Options: --protocol v5|v4|both; --timeout SECONDS per run (default 240); --natural-delay keeps Firefox's
// own first-update delay (3 s + random 0-60 s) instead of forcing the update at start-up; --config FILE
// runs `sbkit serve --config FILE` instead of the embedded demo lists; --target URL; --keep.
// Installs Debian's firefox-esr with apt-get when it is missing ($FIREFOX names another binary).
// Exit status: 0 every run passed, 1 a run failed, 2 the harness could not run.
// docs/firefox.md explains the profile, the steps and how to read the evidence.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LogTail, type LogLine } from './firefox/moz-log.ts';
import { ensureFirefox, exited, firefoxVersion, type SbkitServer, say, startSbkitServer, stopGroup } from './firefox/processes.ts';
import { createProfile, type Protocol } from './firefox/profile.ts';
import { type RecordedRequest, type Recorder, startRecorder } from './firefox/recorder.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// docs/api.md §5's modules, plus nsHostResolver to show which names Firefox tried to resolve.
const MOZ_LOG = 'sync,timestamp,UrlClassifierDbService:5,nsChannelClassifier:5,UrlClassifierStreamUpdater:5,nsHostResolver:5';
/** How long a navigation may take to be blocked (the gethash request included) before the run fails. */
const AFTER_NAVIGATION_MS = 30_000;
const DEFAULT_TARGET = 'http://testsafebrowsing.appspot.com/s/phishing.html';

/** Paths of the requests Firefox makes per protocol. */
const PATHS: Record<Protocol, { update: string; gethash: string }> = {
  v5: { update: '/v5/hashLists:batchGet', gethash: '/v5/hashes:search' },
  v4: { update: '/v4/threatListUpdates:fetch', gethash: '/v4/fullHashes:find' },
};

/** What the logs say, line by line. */
const EVIDENCE = {
  /** The list manager's own verdict (browser.safebrowsing.debug, on Firefox's stdout). */
  updateSuccess: /listmanager: .*update success for /,
  /** The list manager's failure verdicts, and the stream updater's (MOZ_LOG). */
  updateFailure:
    /listmanager: .*(download error for |update error for )|nsUrlClassifierStreamUpdater::(Download|Update|Stream) ?[Ee]rror|Notify (download|update) error/,
  /** The database worker's record of an applied update (MOZ_LOG), shown as supporting evidence. */
  applied: /nsUrlClassifierDBServiceWorker::(FinishUpdate|ApplyUpdate)|Successfully applied|ApplyUpdatesForeground|ApplyUpdatesBackground/,
  phishing: /NS_ERROR_PHISHING_URI/,
  /** nsHostResolver: every name Firefox tried to resolve (the profile should leave only loopback and the test host). */
  lookup: /Resolving host \[([^\]]+)\]/,
  otherBlock: /NS_ERROR_(MALWARE|UNWANTED|HARMFUL)_URI/,
};

interface RunResult {
  protocol: Protocol;
  passed: boolean;
  reasons: string[];
  requests: RecordedRequest[];
  updateRequests: RecordedRequest[];
  gethashRequests: RecordedRequest[];
  updateSuccessLine?: string;
  updateFailureLines: string[];
  appliedLine?: string;
  /** Host names Firefox tried to resolve. */
  lookups: Set<string>;
  blockedLine?: string;
  otherBlockLine?: string;
  /** Seconds since Firefox started. */
  times: { firstUpdateRequest?: number; updateSuccess?: number; navigation?: number; blocked?: number; total: number };
  /** Add to a recorder time to get ms since Firefox started. */
  recorderOffsetMs: number;
  runDir: string;
  kept: boolean;
}

interface Options {
  protocols: Protocol[];
  timeoutMs: number;
  immediateUpdate: boolean;
  target: string;
  keep: boolean;
  /** Extra arguments of `sbkit serve` (--config FILE); none: the embedded demo lists. */
  serveArgs: string[];
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      protocol: { type: 'string', default: 'both' },
      timeout: { type: 'string', default: '240' },
      'natural-delay': { type: 'boolean', default: false },
      target: { type: 'string', default: DEFAULT_TARGET },
      keep: { type: 'boolean', default: false },
      config: { type: 'string' },
    },
    strict: true,
  });
  const protocol = values.protocol;
  const protocols: Protocol[] = protocol === 'both' ? ['v5', 'v4'] : protocol === 'v5' || protocol === 'v4' ? [protocol] : [];
  if (protocols.length === 0) throw new Error(`--protocol must be v5, v4 or both, not "${protocol}"`);
  try {
    new URL(values.target);
  } catch {
    throw new Error(`--target must be a URL, not "${values.target}"`);
  }
  const timeout = Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout < 10 || timeout > 3600)
    throw new Error(`--timeout must be 10 to 3600 seconds, not "${values.timeout}"`);
  return {
    protocols,
    timeoutMs: timeout * 1000,
    immediateUpdate: !values['natural-delay'],
    target: values.target,
    keep: values.keep,
    serveArgs: values.config === undefined ? [] : ['--config', resolve(values.config)],
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const seconds = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms / 100) / 10);

/** Everything that must be stopped or removed, whatever happens. */
const cleanups: Array<() => Promise<void>> = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    const step = cleanups.pop() as () => Promise<void>;
    await step().catch((err: Error) => say(`clean-up: ${err.message}`));
  }
}

function pathOf(url: string): string {
  return url.split('?')[0] ?? url;
}

async function runOnce(protocol: Protocol, firefox: string, server: SbkitServer, options: Options): Promise<RunResult> {
  const runDir = await mkdtemp(join(tmpdir(), `sbkit-firefox-e2e-${protocol}-`));
  const recorder: Recorder = await startRecorder(server.url, options.target, runDir);
  const profile = await createProfile({ protocol, server: recorder.proxyUrl, immediateUpdate: options.immediateUpdate });
  say(`${protocol}: profile ${profile}, logs ${runDir}`);
  say(`${protocol}: Safe Browsing requests go to ${recorder.proxyUrl} (recording pass-through to ${server.url})`);

  const out = createWriteStream(join(runDir, 'firefox-stdout.txt'));
  const started = Date.now();
  const firefoxChild: ChildProcess = spawn(
    firefox,
    ['--headless', '--no-remote', '--new-instance', '--profile', profile, recorder.pageUrl],
    {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        MOZ_HEADLESS: '1',
        MOZ_LOG,
        MOZ_LOG_FILE: join(runDir, 'moz.log'),
        MOZ_CRASHREPORTER_DISABLE: '1',
        // Lets services.settings.server take effect on a release build (else remote settings go to Mozilla).
        MOZ_REMOTE_SETTINGS_DEVTOOLS: '1',
        MOZ_DISABLE_AUTO_SAFE_MODE: '1',
      },
    },
  );
  firefoxChild.stdout?.pipe(out, { end: false });
  firefoxChild.stderr?.pipe(out, { end: false });
  let firefoxStopped = false;
  const stopFirefox = async () => {
    if (firefoxStopped) return;
    firefoxStopped = true;
    await stopGroup(firefoxChild);
    out.end();
  };
  let recorderClosed = false;
  const closeRecorder = async () => {
    if (recorderClosed) return;
    recorderClosed = true;
    await recorder.close();
  };
  // Firefox first, then the recorder, then the profile: also on Ctrl-C.
  const finish = async () => {
    await stopFirefox();
    await closeRecorder();
    await rm(profile, { recursive: true, force: true });
  };
  cleanups.push(finish);
  say(`${protocol}: started ${firefox} (pid ${firefoxChild.pid}) on ${recorder.pageUrl}; waiting up to ${options.timeoutMs / 1000} s`);

  const tail = new LogTail(runDir, ['moz.log', 'firefox-stdout.txt']);
  const result: RunResult = {
    protocol,
    passed: false,
    reasons: [],
    requests: recorder.requests,
    updateRequests: [],
    gethashRequests: [],
    updateFailureLines: [],
    lookups: new Set(),
    times: { total: 0 },
    recorderOffsetMs: recorder.startedAt - started,
    runDir,
    kept: false,
  };
  const at = () => Date.now() - started;
  const targetHost = new URL(options.target).hostname;
  /** A recorder time (ms since the recorder started) as ms since Firefox started. */
  const fromStart = (recorderMs: number) => recorder.startedAt + recorderMs - started;
  const scan = (lines: LogLine[]) => {
    for (const { text } of lines) {
      if (result.updateSuccessLine === undefined && EVIDENCE.updateSuccess.test(text)) {
        result.updateSuccessLine = text;
        result.times.updateSuccess = at();
      }
      const lookup = EVIDENCE.lookup.exec(text);
      if (lookup !== null) result.lookups.add(lookup[1] as string);
      if (result.appliedLine === undefined && EVIDENCE.applied.test(text)) result.appliedLine = text;
      if (EVIDENCE.updateFailure.test(text) && result.updateFailureLines.length < 20) result.updateFailureLines.push(text);
      if (result.blockedLine === undefined && EVIDENCE.phishing.test(text) && text.includes(targetHost)) {
        result.blockedLine = text;
        result.times.blocked = at();
      }
      if (result.otherBlockLine === undefined && EVIDENCE.otherBlock.test(text)) result.otherBlockLine = text;
    }
  };

  let navigationAllowed = false;
  let earlyExit: string | undefined;
  void exited(firefoxChild).then(() => {
    if (!firefoxStopped) earlyExit = `Firefox exited by itself (${firefoxChild.signalCode ?? firefoxChild.exitCode})`;
  });
  const deadline = started + options.timeoutMs;
  let stopAt: number | undefined;
  let stopWhy: string | undefined;
  const stopSoon = (ms: number, why?: string) => {
    if (stopAt === undefined) {
      stopAt = Date.now() + ms;
      stopWhy = why;
    }
  };
  while (Date.now() < deadline && (stopAt === undefined || Date.now() < stopAt)) {
    scan(await tail.poll());
    const updates = recorder.requests.filter((r) => pathOf(r.url) === PATHS[protocol].update);
    if (result.times.firstUpdateRequest === undefined && updates.length > 0)
      result.times.firstUpdateRequest = fromStart((updates[0] as RecordedRequest).at);
    const updated = updates.some((r) => r.status === 200) && result.updateSuccessLine !== undefined;
    if (updated && !navigationAllowed) {
      navigationAllowed = true;
      recorder.allowNavigation();
    }
    const navigated = recorder.navigatedAt();
    // Give the gethash bookkeeping a moment to reach the logs, then stop.
    if (result.blockedLine !== undefined || result.otherBlockLine !== undefined) stopSoon(1500);
    // A failed update is retried only after a back-off of minutes: stop rather than wait for it.
    else if (result.updateFailureLines.length > 0 && result.updateSuccessLine === undefined)
      stopSoon(2000, 'stopped early: the list update failed');
    else if (navigated !== undefined && Date.now() - (recorder.startedAt + navigated) > AFTER_NAVIGATION_MS) {
      stopSoon(0, `stopped: no block ${AFTER_NAVIGATION_MS / 1000} s after the navigation`);
    }
    if (earlyExit !== undefined) break;
    await sleep(250);
  }
  result.times.total = at();
  await stopFirefox();
  scan(await tail.flush());
  await finish();
  cleanups.splice(cleanups.indexOf(finish), 1);

  // Judge from the evidence.
  const requests = recorder.requests;
  result.updateRequests = requests.filter((r) => pathOf(r.url) === PATHS[protocol].update);
  result.gethashRequests = requests.filter((r) => pathOf(r.url) === PATHS[protocol].gethash);
  const navigated = recorder.navigatedAt();
  if (navigated !== undefined) result.times.navigation = fromStart(navigated);
  if (earlyExit !== undefined) result.reasons.push(earlyExit);
  if (result.updateRequests.length === 0) result.reasons.push(`the server saw no ${PATHS[protocol].update} request`);
  else if (!result.updateRequests.some((r) => r.status === 200))
    result.reasons.push(`no ${PATHS[protocol].update} request was answered 200`);
  if (result.updateSuccessLine === undefined) result.reasons.push('Firefox logged no successful list update');
  if (result.updateFailureLines.length > 0)
    result.reasons.push(`Firefox logged ${result.updateFailureLines.length} update failure line(s)`);
  if (navigated === undefined) result.reasons.push('the page never navigated to the test URL (it waits for a successful update)');
  else if (result.blockedLine === undefined) {
    result.reasons.push(
      result.otherBlockLine !== undefined
        ? 'the test URL was blocked, but not as phishing'
        : 'the navigation to the test URL was not blocked as phishing (no NS_ERROR_PHISHING_URI)',
    );
  }
  if (navigated !== undefined && result.gethashRequests.length === 0)
    result.reasons.push(`the server saw no ${PATHS[protocol].gethash} request`);
  if (stopWhy !== undefined) result.reasons.push(stopWhy);
  else if (Date.now() >= deadline && result.blockedLine === undefined) result.reasons.push(`gave up after ${options.timeoutMs / 1000} s`);
  result.passed = result.reasons.length === 0;

  result.kept = options.keep || !result.passed;
  if (!result.kept) await rm(runDir, { recursive: true, force: true });
  return result;
}

function describe(r: RecordedRequest): string {
  const url = r.url.length > 160 ? `${r.url.slice(0, 157)}...` : r.url;
  const status = r.error !== undefined ? `error ${r.error}` : `${r.status} ${r.contentType || '(no content type)'} ${r.responseBytes} B`;
  return `${r.method} ${url} -> ${status} (${r.durationMs} ms)`;
}

function trimLine(line: string): string {
  return line.length > 240 ? `${line.slice(0, 237)}...` : line;
}

function report(result: RunResult, version: string, target: string): string {
  const targetHost = new URL(target).hostname;
  const t = result.times;
  const lines = [
    `== Firefox ${result.protocol} (${result.protocol === 'v5' ? 'google5' : 'google4'} provider, ${version}): ${result.passed ? 'PASSED' : 'FAILED'}`,
    `   server saw ${result.requests.length} request(s): ${result.updateRequests.length} update, ${result.gethashRequests.length} gethash`,
    ...result.requests.flatMap((r) => [
      `     #${r.seq} at ${seconds(r.at + result.recorderOffsetMs)} s: ${describe(r)}`,
      ...(r.errorBody !== undefined ? [`       server answered: ${trimLine(r.errorBody)}`] : []),
    ]),
    `   update success: ${result.updateSuccessLine !== undefined ? 'yes' : 'no'}`,
    ...(result.updateSuccessLine !== undefined ? [`     ${trimLine(result.updateSuccessLine)}`] : []),
    ...(result.updateSuccessLine !== undefined && result.appliedLine !== undefined ? [`     ${trimLine(result.appliedLine)}`] : []),
    ...(result.updateFailureLines.length > 0
      ? ['   update failure lines:', ...result.updateFailureLines.map((l) => `     ${trimLine(l)}`)]
      : []),
    `   blocked as phishing: ${result.blockedLine !== undefined ? 'yes' : 'no'}${result.blockedLine !== undefined ? `\n     ${trimLine(result.blockedLine)}` : ''}`,
    ...(result.otherBlockLine !== undefined ? [`   other block: ${trimLine(result.otherBlockLine)}`] : []),
    `   timings (s after Firefox start, ±0.25 s): first update request ${seconds(t.firstUpdateRequest) ?? '-'}, update success ${seconds(t.updateSuccess) ?? '-'}, navigation ${seconds(t.navigation) ?? '-'}, blocked ${seconds(t.blocked) ?? '-'}, run ${seconds(t.total)}`,
    `   other host names Firefox looked up: ${[...result.lookups].filter((h) => h !== '127.0.0.1' && h !== 'localhost' && h !== targetHost).join(', ') || 'none'}`,
    ...result.reasons.map((reason) => `   FAIL: ${reason}`),
    ...(result.kept ? [`   logs kept in ${result.runDir} (moz.log*, firefox-stdout.txt, requests.jsonl, NNN-response.bin)`] : []),
  ];
  return lines.join('\n');
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    say((err as Error).message);
    return 2;
  }
  const stop = (signal: string) => {
    say(`${signal}: stopping Firefox and the server`);
    void cleanUp().then(() => process.exit(130));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

  const begun = Date.now();
  let firefox: string;
  let server: SbkitServer;
  try {
    firefox = ensureFirefox();
    server = await startSbkitServer(REPO, options.serveArgs);
  } catch (err) {
    say((err as Error).message);
    await cleanUp();
    return 2;
  }
  cleanups.push(() => stopGroup(server.child));
  const version = firefoxVersion(firefox);
  say(
    `${version}; sbkit server (pid ${server.child.pid}) at ${server.url} (${server.output.find((l) => l.includes('listening on')) ?? ''})`,
  );

  const results: RunResult[] = [];
  try {
    for (const protocol of options.protocols) {
      const result = await runOnce(protocol, firefox, server, options);
      results.push(result);
      process.stdout.write(`${report(result, version, options.target)}\n`);
    }
  } catch (err) {
    say(`harness error: ${(err as Error).stack ?? String(err)}`);
    await cleanUp();
    return 2;
  }
  await cleanUp();
  const summary = results.map((r) => `${r.protocol} ${r.passed ? 'passed' : 'FAILED'}`).join(', ');
  process.stdout.write(`== ${summary} in ${seconds(Date.now() - begun)} s\n`);
  return results.every((r) => r.passed) ? 0 : 1;
}

process.exitCode = await main();
