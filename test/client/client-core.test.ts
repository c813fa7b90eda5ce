import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SafeBrowsingClientCore } from '../../src/client/client-core.ts';
import type { ClientRuntime } from '../../src/client/runtime/client-runtime.ts';
import type { SafeBrowsingClientOptions } from '../../src/client/options.ts';
import type { HashList } from '../../src/store/hash-list.ts';
import type { ListStore, StoredList } from '../../src/store/list-store.ts';
import { nodeExpressionHasher, nodeSha256 } from '../../src/url/hash.ts';

/** A store in memory that writes down what was done to it, in order. */
class RecordingStore implements ListStore {
  readonly readOnly = false;
  readonly stateFile = 'memory:state';
  readonly calls: string[] = [];
  private readonly lists = new Map<string, StoredList>();
  private state: unknown;

  fileOf(name: string): string {
    return `memory:${name}`;
  }
  get(name: string): StoredList | undefined {
    return this.lists.get(name);
  }
  all(): StoredList[] {
    return [...this.lists.values()];
  }
  async save(list: HashList, updatedAt: number): Promise<void> {
    this.calls.push(`save ${list.name}`);
    this.lists.set(list.name, { list, updatedAt });
  }
  async drop(name: string): Promise<void> {
    this.calls.push(`drop ${name}`);
    this.lists.delete(name);
  }
  async readState(): Promise<unknown> {
    return this.state;
  }
  async writeState(state: unknown): Promise<void> {
    this.calls.push('writeState');
    this.state = state;
  }
  close(): void {
    this.calls.push('close');
  }
}

/** The core on a runtime whose store is `store`; nothing is ever asked of a server. */
class TestClient extends SafeBrowsingClientCore {
  constructor(options: SafeBrowsingClientOptions, store: ListStore) {
    const runtime: ClientRuntime = {
      hasher: nodeExpressionHasher,
      sha256: nodeSha256,
      openStore: () => Promise.resolve(store),
      connect: () => Promise.reject(new Error('no server in this test')),
      userAgent: 'test',
    };
    super(options, runtime);
  }
}

describe('SafeBrowsingClientCore.close', () => {
  it('saves the request schedules, then closes the store it opened (an IndexedDB connection is not left open)', async () => {
    const store = new RecordingStore();
    const client = new TestClient({ mode: 'local', lists: ['mw-4b'] }, store);
    await client.open();
    await client.close();
    assert.deepEqual(store.calls, ['writeState', 'close']);
  });

  it('closes nothing it never opened', async () => {
    const store = new RecordingStore();
    await new TestClient({ mode: 'local', lists: ['mw-4b'] }, store).close();
    await new TestClient({ mode: 'nostorage' }, store).close();
    assert.deepEqual(store.calls, []);
  });
});
