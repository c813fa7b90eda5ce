// The one bound on the commands of a Redis client, whatever its kind (redis-clients.ts), and what
// follows once a command missed it. node-redis bounds neither wait a command can meet:
// - Once a command is written, its reply: commandOptions.timeout is cleared as the command goes out on
//   the socket, so a server that stops answering (SIGSTOP, a hung host) holds it, and the request that
//   asked, for ever.
// - Before it is written, on Sentinel or Cluster: the Sentinel client holds every command until it has
//   found a primary again (for ever, while the set has none), the Cluster client while it asks for the
//   slots. What it holds it sends when Redis returns, stamped with Redis's time then: load-control hits
//   counted all at once, the upstream bucket drained, an entry edit made after its caller was told that
//   none was.
// So each command races the part's deadline on the part's clock, and carries the deadline's signal:
// node-redis drops a command aborted before it is written, however long it held it, so that one whose
// caller was told it failed never runs afterwards. Once a command missed its deadline, the gate holds:
// commands fail at once without reaching node-redis (which would hold them too, memory growing with the
// request rate) until Redis answers a probe, a PING sent one at a time and never cut short (a PING run
// late changes nothing; its answer, however late, is that Redis answers).
//
// A command written before its deadline and not answered may have run, or run when a frozen server
// resumes and reads it: nothing on this side can take back what the server has received.

import { type Backoff, backoffMs } from '../../time/backoff.ts';
import { type Clock, deadline } from '../../time/clock.ts';

/** Between probes that failed at once (the client reconnecting), 50 ms doubling to 2 s. */
const PROBE_BACKOFF: Backoff = { firstMs: 50, maxMs: 2000 };

interface GateOptions {
  /** Each command's bound, on `clock`. */
  timeoutMs: number;
  clock: Clock;
  /** Sends a PING through the client, with no deadline of node-redis's or ours. */
  ping: () => Promise<unknown>;
  /** The gate opens again: Redis answered after a command had missed its deadline. */
  reopened: () => void;
}

/** The commands of one client: bounded each, held back from node-redis while Redis has not answered since one missed its bound. */
export class CommandGate {
  private held = false;
  private probing = false;
  private failedProbes = 0;
  private timer: unknown;

  constructor(private readonly options: GateOptions) {}

  /** True while a command missed its deadline and Redis has not answered since: commands fail at once. */
  get holding(): boolean {
    return this.held;
  }

  /**
   * `command`'s reply, or its failure, or a TimeoutError once the deadline passed (the signal given to
   * `command` aborts then, which withdraws the command if node-redis has not written it yet). Fails at
   * once while the gate holds.
   */
  async send<T>(command: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const { timeoutMs, clock } = this.options;
    if (this.held) {
      throw new Error(
        `Redis left a command unanswered past ${timeoutMs} ms and has not answered since; commands fail at once until it answers a PING`,
      );
    }
    const { signal, clear } = deadline(clock, timeoutMs);
    const late = new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
    const sent = command(signal);
    // Cut short, the command rejects later (withdrawn, or its connection gone): that is this failure, reported now.
    sent.catch(() => undefined);
    try {
      const reply = await Promise.race([sent, late]);
      this.release();
      return reply;
    } catch (error) {
      if (signal.aborted) this.hold();
      throw error;
    } finally {
      clear();
    }
  }

  /** Redis answered: the gate opens if it held. Returns whether it held. */
  release(): boolean {
    if (!this.held) return false;
    this.held = false;
    this.failedProbes = 0;
    this.options.clock.clearTimeout(this.timer);
    this.options.reopened();
    return true;
  }

  /** The client connects afresh, or closes: nothing is held, no probe is due. */
  reset(): void {
    this.held = false;
    this.failedProbes = 0;
    this.options.clock.clearTimeout(this.timer);
  }

  private hold(): void {
    if (this.held) return;
    this.held = true;
    this.probe();
  }

  private probe(): void {
    // One probe at a time: one that waits (a frozen server, a Sentinel set without a primary) is the
    // one that learns first that Redis answers again.
    if (this.probing || !this.held) return;
    this.probing = true;
    this.options.ping().then(
      () => {
        this.probing = false;
        this.release();
      },
      () => {
        this.probing = false;
        if (!this.held) return;
        this.failedProbes += 1;
        this.timer = this.options.clock.setTimeout(() => this.probe(), backoffMs(PROBE_BACKOFF, this.failedProbes));
      },
    );
  }
}
