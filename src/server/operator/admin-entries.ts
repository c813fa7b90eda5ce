// `POST /admin/lists/NAME/entries`: the operator adds entries to a list, or takes them out, while the
// server runs, and the list is published at once (feed-lists.ts editEntries) when it can be. The body is JSON:
//
//   { "add": ["http://phish.example/login", "evil.example/"], "remove": ["old.example/"] }
//
// each entry a URL (with its scheme, read as a `urls` feed reads it) or an expression (host/path, read as
// an `expressions` feed reads it), canonicalized (SB-5, SB-6) before it is kept. One bad entry refuses the
// whole request, naming it, so that an operator never half-applies a batch. The edits lie over the list's
// `entries` sources and are kept where entry-edits.ts says.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SbkitError } from '../../sbkit-error.ts';
import { WireError } from '../../wire/wire-error.ts';
import type { EntriesEdited, ListLoadReport } from '../feeds/feed-lists.ts';
import { expressionLineExpression, urlExpression } from '../feeds/formats/entry-expression.ts';
import { type EditKeeping, MAX_EDITS_PER_LIST } from '../feeds/entry-edits.ts';
import { excerpt, quotedExcerpt } from '../feeds/formats/excerpt.ts';
import { sendWireError } from '../http/replies.ts';

/** What the operator's routes may do to the lists of a configuration (FeedLists). */
export interface ListOperations {
  /** The lists served, by name. */
  readonly names: readonly string[];
  /** Where entry edits are kept. */
  readonly editKeeping: EditKeeping;
  reloadOne(name: string): Promise<ListLoadReport> | undefined;
  editEntries(
    name: string,
    add: readonly string[],
    remove: readonly string[],
  ): Promise<EntriesEdited | 'unknown' | 'no-entries' | 'too-many'>;
}

/** Entries one request may name, added and removed together: an incident's batch, not a feed. */
export const MAX_ENTRIES_PER_EDIT = 10_000;
/** The longest entry: longer than any URL a browser keeps in its address bar. */
const MAX_ENTRY_LENGTH = 4096;
/** Room for MAX_ENTRIES_PER_EDIT entries of a usual length. */
const MAX_EDIT_BODY_BYTES = 2 * 1024 * 1024;

/** How long each keeping lasts, in the answer and the log. */
const KEPT: Record<EditKeeping, string> = {
  memory: 'in memory until the server stops (start it with --data or --redis to keep edits)',
  'data folder': 'in the data folder (--data), across restarts',
  redis: 'in Redis, for every instance and across restarts',
};

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** An entry of the body as its canonical expression; WireError naming it (`add[3]`) when it is none. */
function entryExpression(value: unknown, at: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new WireError('INVALID_ARGUMENT', `${at} must be a non-empty string`);
  if (value.length > MAX_ENTRY_LENGTH) throw new WireError('INVALID_ARGUMENT', `${at} is longer than ${MAX_ENTRY_LENGTH} characters`);
  if (/[\r\n]/.test(value)) throw new WireError('INVALID_ARGUMENT', `${at} must be one line`);
  try {
    return SCHEME.test(value.trim()) ? urlExpression(value.trim()) : expressionLineExpression(value);
  } catch (error) {
    if (!(error instanceof SbkitError)) throw error;
    throw new WireError('INVALID_ARGUMENT', `${at} ${quotedExcerpt(value)} is no entry: ${error.message}`);
  }
}

/** The body's `add` and `remove`, canonical; WireError for anything else. `body` is the request's bytes. */
function parseEntryEdit(body: unknown): { add: string[]; remove: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.isBuffer(body) ? body.toString('utf8') : '');
  } catch {
    throw new WireError('INVALID_ARGUMENT', 'the body must be JSON: {"add": [...], "remove": [...]}');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new WireError('INVALID_ARGUMENT', 'the body must be a JSON object: {"add": [...], "remove": [...]}');
  }
  const fields = json as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => key !== 'add' && key !== 'remove');
  if (unknown.length > 0)
    throw new WireError('INVALID_ARGUMENT', `unknown field ${quotedExcerpt(unknown[0]!)}; the fields are add and remove`);
  const lists = { add: fields.add ?? [], remove: fields.remove ?? [] };
  for (const [key, value] of Object.entries(lists)) {
    if (!Array.isArray(value)) throw new WireError('INVALID_ARGUMENT', `${key} must be an array of URLs or expressions`);
  }
  const add = lists.add as unknown[];
  const remove = lists.remove as unknown[];
  if (add.length + remove.length === 0) throw new WireError('INVALID_ARGUMENT', 'nothing to do: add and remove are both empty');
  if (add.length + remove.length > MAX_ENTRIES_PER_EDIT) {
    throw new WireError(
      'INVALID_ARGUMENT',
      `${add.length + remove.length} entries in one request, more than ${MAX_ENTRIES_PER_EDIT}; a list that large belongs in a file source`,
    );
  }
  return {
    add: add.map((value, i) => entryExpression(value, `add[${i}]`)),
    remove: remove.map((value, i) => entryExpression(value, `remove[${i}]`)),
  };
}

/** Registers the route on `app`, behind `guard` (the admin token and its throttle, operator-routes.ts). */
export function registerEntryRoutes(
  app: FastifyInstance,
  guard: (request: FastifyRequest, reply: FastifyReply) => boolean,
  lists: ListOperations,
  log: (message: string) => void,
): void {
  // Its own scope: the body arrives as bytes whatever its type, and is read here, within its own limit.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_EDIT_BODY_BYTES }, (_request, body, done) => done(null, body));
    scope.post('/admin/lists/:name/entries', { bodyLimit: MAX_EDIT_BODY_BYTES }, async (request, reply) => {
      if (!guard(request, reply)) return reply;
      const { name } = request.params as { name: string };
      let edit: { add: string[]; remove: string[] };
      try {
        edit = parseEntryEdit(request.body);
      } catch (error) {
        if (error instanceof WireError) return sendWireError(reply, error);
        throw error;
      }
      let outcome: Awaited<ReturnType<ListOperations['editEntries']>>;
      try {
        outcome = await lists.editEntries(name, edit.add, edit.remove);
      } catch (error) {
        // Where the edits are kept (a data folder, Redis) failed: nothing was changed, unless a Redis that
        // received the edit stopped answering before it said so (docs/instances.md), which it still makes.
        const why = error instanceof Error ? error.message : String(error);
        return sendWireError(
          reply,
          new WireError(
            'UNAVAILABLE',
            `the edits of ${name} could not be kept, so none was made, unless Redis received them before it stopped ` +
              `answering (then they are made once it answers again; sending them again changes nothing more): ${excerpt(why, 200)}`,
          ),
        );
      }
      if (outcome === 'unknown') {
        return sendWireError(
          reply,
          new WireError('NOT_FOUND', `no list ${quotedExcerpt(name)} here; the lists are ${lists.names.join(', ')}`),
        );
      }
      if (outcome === 'no-entries') {
        return sendWireError(
          reply,
          new WireError(
            'FAILED_PRECONDITION',
            `the list ${name} has no "entries" source to edit; add { "entries": [] } to its sources in the configuration`,
          ),
        );
      }
      if (outcome === 'too-many') {
        return sendWireError(
          reply,
          new WireError(
            'FAILED_PRECONDITION',
            `the list ${name} would hold more than ${MAX_EDITS_PER_LIST} edits; put that many entries in a file source`,
          ),
        );
      }
      const { report } = outcome;
      log(
        `admin: ${name}: ${edit.add.length} entries added, ${edit.remove.length} removed, kept ${KEPT[lists.editKeeping]}` +
          (report.served ? '' : `; not served yet: ${report.notServed ?? 'the list stays as it was'}`),
      );
      // 202: the edits are kept, and served only once the list can be published (a source without a copy
      // holds it back); 200 only when the version served holds them.
      void reply.code(report.served ? 200 : 202);
      return {
        list: name,
        added: edit.add,
        removed: edit.remove,
        kept: KEPT[lists.editKeeping],
        inAll: { added: outcome.edits.added.length, removed: outcome.edits.removed.length },
        served: report.served,
        ...(report.served ? {} : { notServed: report.notServed ?? 'the list stays as it was' }),
        reloaded: report,
      };
    });
  });
}
