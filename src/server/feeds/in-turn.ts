/**
 * Work that runs one piece at a time, each once the one before has finished: a list's reloads, so that
 * an older read never publishes after a newer one, and its publications, each merging what is held when
 * its turn comes (feed-list.ts).
 */
export class InTurn {
  /** The last piece of work given, while it runs or waits. */
  private last: Promise<unknown> | undefined;

  /** Runs `work` once every piece given before has finished; settles as `work` does. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = (this.last ?? Promise.resolve()).then(work);
    this.last = next;
    void next.finally(() => {
      if (this.last === next) this.last = undefined;
    });
    return next;
  }
}
