// Which of the lists a client keeps its server publishes, as the server said when asked (`GET
// /v5/hashLists`, v4 `threatLists`) or as a stored copy shows (SB-9: a list once published stays). A
// list the server lacks is never stored as an empty one: it would answer every URL SAFE. Lists the
// caller did not name (the default threat lists, the global cache) may be missing; the others, or every
// threat list at once, may not.

import { canonicalListName } from '../lists/known-lists.ts';
import { UnknownListError } from '../lists/unknown-list-error.ts';

export class PublishedLists {
  private readonly published = new Set<string>();
  private readonly missing = new Set<string>();
  /** The names the server gave when last asked which lists it publishes. */
  private available: readonly string[] = [];

  constructor(
    /** Lists kept only when the server publishes them. */
    private readonly optional: ReadonlySet<string>,
    /** The threat lists kept: the server must publish at least one. */
    private readonly threatLists: readonly string[],
  ) {}

  /** Whether the server is known to publish the list. */
  has(name: string): boolean {
    return this.published.has(name);
  }

  /** A stored copy of the list: the server published it. */
  stored(name: string): void {
    this.published.add(name);
  }

  /**
   * The server's word on which lists it publishes, for `names`; `published` undefined: it cannot say, and
   * is taken at its word that it has them all. Returns the names it lacks.
   */
  learn(names: readonly string[], published: readonly string[] | undefined): string[] {
    if (published === undefined) {
      for (const name of names) this.published.add(name);
      return [];
    }
    this.available = published;
    const has = new Set(published.map(canonicalListName));
    const lacking: string[] = [];
    for (const name of names) {
      if (has.has(canonicalListName(name))) {
        this.published.add(name);
        this.missing.delete(name);
      } else {
        lacking.push(name);
        this.missing.add(name);
      }
    }
    return lacking;
  }

  /** The lists the server said it lacks, until it is asked again. */
  get notServed(): string[] {
    return [...this.missing];
  }

  /**
   * Of `names`, those that count (optional lists the server lacks are left out), or the UnknownListError
   * when one the server must publish is missing, or when none of them is left.
   */
  counted(names: readonly string[]): { lists: string[] } | { error: UnknownListError } {
    const lists = names.filter((name) => !(this.missing.has(name) && this.optional.has(name)));
    const unknown = lists.filter((name) => this.missing.has(name));
    if (unknown.length > 0 || (lists.length === 0 && names.length > 0))
      return { error: new UnknownListError(unknown.length > 0 ? unknown : names, this.available) };
    return { lists };
  }

  /** UnknownListError for the missing lists the client needs: any it must have, or all its threat lists. */
  unknownLists(): UnknownListError | undefined {
    const needed = [...this.missing].filter((name) => !this.optional.has(name));
    const noThreatList = this.threatLists.length > 0 && this.threatLists.every((name) => this.missing.has(name));
    if (needed.length === 0 && !noThreatList) return undefined;
    return new UnknownListError(needed.length > 0 ? needed : this.threatLists, this.available);
  }
}
