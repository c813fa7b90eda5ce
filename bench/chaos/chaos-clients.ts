// The chaos run's clients: sbkit's own SafeBrowsingClient, half in local-list mode and half in real-time
// mode, all through the front, each checking known listed and unlisted URLs in a loop and judging every
// verdict against what it may be:
//
//   - local mode judges against the generation the client holds (known from its se-4b checksum): a
//     URL listed there is UNSAFE (the search confirms it while the servers still list it), a marker it
//     does not hold (newer, or removed by a diff) is SAFE without asking;
//   - real-time mode asks the servers: a marker listed by every generation an instance may have served
//     during the check is UNSAFE, one listed by none is SAFE, others are not judged;
//   - stable and malware URLs are UNSAFE, clean URLs SAFE, whatever the generation;
//   - whoever the client is, a verdict its local lists gave (answeredBy 'database') is judged against
//     the generation it holds: a real-time client whose search failed or had to wait asks its current
//     local lists instead (SB-8's UNSURE, docs/protocol.md), which answer SAFE for a marker newer than
//     they are, however many servers list it by then.
// A verdict that comes with an error (a search that failed or had to wait) is the procedure's fallback
// (SB-8), counted apart and not judged. A round in which the client's list changed, or a generation was
// written, during the check is not judged either.

import { SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import type { ClientEvent } from '../../src/client/options.ts';
import type { CheckResult } from '../../src/client/url-checks.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { cleanUrls, type Generations, listsMarker, malwareUrls, markerUrl, ROTATING_LIST, stableUrls, WINDOW } from './feed-generations.ts';

/** What the run tells the clients about generations: what is known, written, and surely served. */
export interface Publication {
  generations: Generations;
  /** The newest generation written to the feed. */
  newest(): number;
  /** A generation every search answer a client may still use comes from, or a newer one; -1 when unknown. */
  floor(): number;
}

export interface ClientTally {
  name: string;
  mode: 'local' | 'realtime';
  rounds: number;
  verdicts: number;
  /** Of a real-time client, verdicts its local lists gave after a search failed or had to wait (SB-8's UNSURE). */
  byHeldLists: number;
  wrong: string[];
  fallbacks: number;
  /** Rounds skipped: the list changed under the check, or there was nothing to judge yet. */
  unjudged: number;
  /** Updates that failed (RF-4 back-off follows), by error code. */
  failedUpdates: Map<string, number>;
  /** Lists dropped after an update that could not be applied (a checksum mismatch, SB-9). */
  dropped: string[];
  /** Drops that their list's next full update, verified by its checksum, made good (DropRecovery). */
  recoveredAfterDrop: number;
  /**
   * Full updates of a list the client held a version of, not after a drop: the server no longer knew the
   * version the client held, and sent it back to a full list. Each with the generation held before.
   */
  resets: string[];
  /** A held se-4b that is no generation ever published. */
  unknownVersions: number;
  /** The generation held, and when it was first seen (performance.now()). */
  held: { generation: number; since: number } | undefined;
}

const URL_LOOP_MS = 250;

/**
 * Drops of lists (SB-9) and their recovery, per list: a drop is made good by that list's next update
 * that stored it whole (not a diff) and that the server's checksum verified, and by nothing else.
 */
export class DropRecovery {
  /** Per list, drops not made good yet. */
  private readonly waiting = new Map<string, number>();
  /** Drops made good. */
  recovered = 0;

  onEvent(event: ClientEvent): void {
    if (event.type === 'list-dropped') this.waiting.set(event.list, (this.waiting.get(event.list) ?? 0) + 1);
    if (event.type !== 'update') return;
    for (const { list, partial, verified } of event.stored) {
      if (partial || !verified) continue;
      this.recovered += this.waiting.get(list) ?? 0;
      this.waiting.delete(list);
    }
  }
}

/**
 * Resets: full updates of a list that the client held a version of and did not drop. The first update
 * of a list is full, and so is the one after a drop (SB-9, counted by DropRecovery); any other full
 * update means the server did not know the version the client held.
 */
export class FullUpdates {
  private readonly held = new Set<string>();

  /** The lists this event sent back to a full update. */
  onEvent(event: ClientEvent): string[] {
    if (event.type === 'list-dropped') this.held.delete(event.list);
    if (event.type !== 'update') return [];
    const reset = event.stored.filter(({ list, partial }) => !partial && this.held.has(list)).map(({ list }) => list);
    for (const { list } of event.stored) this.held.add(list);
    return reset;
  }
}

/** What a URL's verdict must be (true UNSAFE, false SAFE), by who gives it. */
export interface Expected {
  /** A server's answer, or the memory cache's of one. */
  byServer: boolean;
  /** The local lists' answer: what the generation the client holds says. */
  byHeldLists: boolean;
}

/**
 * The URLs a round checks and what each must be, for a client of `mode` holding generation `held`
 * while `floor` and `newest` bound what the servers may answer from (Publication).
 */
export function expectations(mode: 'local' | 'realtime', held: number, floor: number, newest: number): Map<string, Expected> {
  const expected = new Map<string, Expected>();
  const always = (url: string, unsafe: boolean) => expected.set(url, { byServer: unsafe, byHeldLists: unsafe });
  const marker = (k: number, byServer: boolean) => expected.set(markerUrl(k), { byServer, byHeldLists: listsMarker(held, k) });
  for (const url of [...stableUrls, ...malwareUrls]) always(url, true);
  for (const url of cleanUrls) always(url, false);
  if (mode === 'local') {
    // Listed in the held version, and by every generation a server may answer the search from.
    if (floor >= held && newest - held < WINDOW - 1) marker(held, true);
    marker(held + 1, false);
    if (held >= WINDOW) marker(held - WINDOW, false);
  } else {
    for (let k = Math.max(0, floor - WINDOW - 1); k <= newest + 1; k++) {
      const listedByAll = listsMarker(floor, k) && listsMarker(newest, k);
      const listedByNone = k > newest || k <= floor - WINDOW;
      if (listedByAll) marker(k, true);
      else if (listedByNone) marker(k, false);
    }
  }
  return expected;
}

/** Whether a checked result is right; undefined for a fallback (an error came with it), which is not judged. */
export function judge(expected: Expected, result: CheckResult): boolean | undefined {
  if (result.error !== undefined) return undefined;
  const unsafe = result.verdict === 'UNSAFE';
  return unsafe === (result.answeredBy === 'database' ? expected.byHeldLists : expected.byServer);
}

export class ChaosClient {
  readonly tally: ClientTally;
  private readonly client: SafeBrowsingClient;
  private readonly recovery = new DropRecovery();
  private readonly resets = new FullUpdates();
  private running = false;
  /** The checksum of se-4b held after the last event. */
  private lastSeen: string | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    name: string,
    mode: 'local' | 'realtime',
    server: string,
    apiKey: string,
    private readonly publication: Publication,
  ) {
    this.tally = {
      name,
      mode,
      rounds: 0,
      verdicts: 0,
      byHeldLists: 0,
      wrong: [],
      fallbacks: 0,
      unjudged: 0,
      failedUpdates: new Map(),
      dropped: [],
      recoveredAfterDrop: 0,
      resets: [],
      unknownVersions: 0,
      held: undefined,
    };
    this.client = new SafeBrowsingClient({
      server,
      apiKey,
      mode,
      lists: ['se-4b', 'mw-4b'],
      userAgent: `sbkit-chaos/${name}`,
      firstUpdateWindowMs: 500,
      timeoutMs: 5000,
      onEvent: (event) => this.onEvent(event),
    });
  }

  private onEvent(event: ClientEvent): void {
    if (event.type === 'update-failed') {
      const code = (event.error as { code?: string }).code ?? event.error.name;
      this.tally.failedUpdates.set(code, (this.tally.failedUpdates.get(code) ?? 0) + 1);
    }
    if (event.type === 'list-dropped') this.tally.dropped.push(`${event.list}: ${event.error.message}`);
    this.recovery.onEvent(event);
    this.tally.recoveredAfterDrop = this.recovery.recovered;
    const before = this.lastSeen;
    // The generation held after this event: what a later reset says the client held before it.
    this.lastSeen = this.client.listInfo().find((list) => list.name === ROTATING_LIST)?.checksum;
    for (const list of this.resets.onEvent(event)) {
      const held = list === ROTATING_LIST && before !== undefined ? this.publication.generations.ofChecksum(before) : undefined;
      this.tally.resets.push(`${list}${held === undefined ? '' : ` held at generation ${held}`}`);
    }
  }

  start(): void {
    this.running = true;
    this.loop = (async () => {
      await this.client.start();
      while (this.running) {
        await this.round();
        await sleep(URL_LOOP_MS);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.client.close();
  }

  /** The generation of se-4b the client holds now; undefined before its first update. */
  heldGeneration(): number | undefined {
    const info = this.client.listInfo().find((list) => list.name === ROTATING_LIST);
    if (info === undefined || info.version === '') return undefined;
    const generation = this.publication.generations.ofChecksum(info.checksum);
    if (generation === undefined) this.tally.unknownVersions++;
    return generation;
  }

  private noteHeld(generation: number): void {
    const held = this.tally.held;
    if (held !== undefined && held.generation === generation) return;
    this.tally.held = { generation, since: performance.now() };
  }

  private async round(): Promise<void> {
    this.tally.rounds++;
    const before = this.heldGeneration();
    const floor = this.publication.floor();
    const newest = this.publication.newest();
    if (before === undefined) {
      this.tally.unjudged++;
      return;
    }
    this.noteHeld(before);
    const expected = expectations(this.tally.mode, before, floor, newest);
    const urls = [...expected.keys()];
    let results;
    try {
      results = await this.client.checkUrls(urls);
    } catch (error) {
      this.tally.wrong.push(`checkUrls rejected: ${(error as Error).message}`);
      return;
    }
    const after = this.heldGeneration();
    if (after !== before || this.publication.newest() !== newest) {
      this.tally.unjudged++;
      return;
    }
    results.forEach((result, i) => {
      const url = urls[i]!;
      const right = judge(expected.get(url)!, result);
      if (right === undefined) {
        this.tally.fallbacks++;
        return;
      }
      this.tally.verdicts++;
      if (result.answeredBy === 'database' && this.tally.mode === 'realtime') this.tally.byHeldLists++;
      if (!right) {
        this.tally.wrong.push(
          `${url}: ${result.verdict} by the ${result.answeredBy} holding generation ${before} (floor ${floor}, newest ${newest})`,
        );
      }
    });
  }
}
