// Each error class types its `code` as the union of its own codes, so that a caller's misspelt code is a
// compile error rather than a branch that never runs. `tsc --noEmit` (npm test) checks the types here:
// a `@ts-expect-error` whose line compiles is itself an error. At run time, each class's static `codes`
// must be what its instances carry, since docs/errors.md is checked against `codes` alone.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/cli/io.ts';
import * as root from '../../src/index.ts';
import {
  type CheckError,
  ClientOptionError,
  DatabaseFileError,
  DatabaseStorageError,
  HashListUpdateError,
  InvalidUrlError,
  ListsNotCurrentError,
  ListTooLargeError,
  NoV4ListError,
  RiceDecodeError,
  SbkitError,
  SearchDeferredError,
  TransportError,
  UnexpectedError,
  UnknownListError,
  UpdateLoopError,
  V4ListUpdateError,
  WebRiskListUpdateError,
  NoWebRiskListError,
  WireResponseError,
} from '../../src/index.ts';
import * as server from '../../src/server/index.ts';
import {
  BadEntryError,
  BinaryHttpError,
  ConfigError,
  FeedEntryLimitError,
  FeedFormatError,
  FeedWorkerError,
  GatewayKeysUnavailableError,
  ListenError,
  ListError,
  LoadControlError,
  OhttpError,
  RedisConnectionError,
  RiceEncodeError,
  SnapshotStoreError,
  SourceError,
  WireError,
} from '../../src/server/index.ts';

/** Every error class, by name: the type check below covers each. */
const CLASSES = {
  BadEntryError,
  BinaryHttpError,
  ClientOptionError,
  ConfigError,
  DatabaseFileError,
  DatabaseStorageError,
  FeedEntryLimitError,
  FeedFormatError,
  FeedWorkerError,
  GatewayKeysUnavailableError,
  HashListUpdateError,
  InvalidUrlError,
  ListenError,
  ListError,
  ListsNotCurrentError,
  ListTooLargeError,
  LoadControlError,
  NoV4ListError,
  NoWebRiskListError,
  OhttpError,
  RedisConnectionError,
  RiceDecodeError,
  RiceEncodeError,
  SearchDeferredError,
  SnapshotStoreError,
  SourceError,
  TransportError,
  UnexpectedError,
  UnknownListError,
  UpdateLoopError,
  UsageError,
  V4ListUpdateError,
  WebRiskListUpdateError,
  WireError,
  WireResponseError,
};
type Classes = typeof CLASSES;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** True when instances' `code` is a union of literals, and exactly the union of the static `codes`. */
type CodeIsItsCodes<Class> = Class extends { prototype: { code: infer Code }; codes: readonly (infer Listed)[] }
  ? string extends Code
    ? false
    : Same<Code, Listed>
  : false;
/** The classes whose `code` is plain `string`, or differs from their `codes`: none. */
type Untyped = { [Name in keyof Classes]: CodeIsItsCodes<Classes[Name]> extends true ? never : Name }[keyof Classes];
// Naming a class in the error when one is not typed, rather than a bare `false`.
const untyped: [Untyped] extends [never] ? 'none' : Untyped = 'none';

describe('error codes', () => {
  it('types every class: a misspelt code does not compile, a real one does', () => {
    assert.equal(untyped, 'none');
    const timeout = new TransportError('timeout', 'no answer within 5000 ms');
    // @ts-expect-error: TIMOUT is misspelt, and no code of TransportError's
    assert.equal(timeout.code === 'SBKIT_TRANSPORT_TIMOUT', false);
    assert.equal(timeout.code === 'SBKIT_TRANSPORT_TIMEOUT', true);

    const config = new ConfigError('port', 'must be a number');
    // @ts-expect-error: a class of one code is of that code alone
    assert.equal(config.code === 'SBKIT_CONFIGURATION', false);
    assert.equal(config.code === 'SBKIT_CONFIG', true);

    const refusal = new WireError('NOT_FOUND', 'no such path');
    // @ts-expect-error: a google.rpc.Code name the server never answers with
    assert.equal(refusal.code === 'SBKIT_WIRE_DEADLINE_EXCEEDED', false);
    assert.equal(refusal.code === 'SBKIT_WIRE_NOT_FOUND', true);

    // The union of a check's errors carries the union of their codes.
    const checkError: CheckError = timeout;
    // @ts-expect-error: the code of an error a check never reports
    assert.equal(checkError.code === 'SBKIT_CONFIG', false);
    assert.equal(checkError.code === 'SBKIT_TRANSPORT_TIMEOUT', true);
  });

  it('lists every error class the entry points export', () => {
    const exported = [...Object.values(root), ...Object.values(server)].filter(
      (value): value is typeof SbkitError => typeof value === 'function' && value.prototype instanceof SbkitError,
    );
    const missing = [...new Set(exported)].map((type) => type.name).filter((name) => !Object.hasOwn(CLASSES, name));
    assert.deepEqual(missing, []);
  });

  it('gives each class, as codes, exactly the codes of its instances, one reason after another', () => {
    const instances: { [Name in keyof Classes]?: InstanceType<Classes[Name]>[] } = {
      TransportError: (['network', 'timeout', 'too-large'] as const).map((kind) => new TransportError(kind, 'x')),
      RiceEncodeError: (['parameter-out-of-range', 'not-ascending', 'ragged-input'] as const).map(
        (reason) => new RiceEncodeError(reason, 'v4', 'x'),
      ),
      InvalidUrlError: (['empty', 'too-long', 'unsupported-scheme', 'no-host', 'invalid-ipv6', 'invalid-host'] as const).map(
        (reason) => new InvalidUrlError(reason, 'x'),
      ),
      WireResponseError: (['error-status', 'malformed-body'] as const).map((kind) => new WireResponseError(kind, 500, undefined, 'x')),
      RedisConnectionError: (['invalid-url', 'unavailable'] as const).map((reason) => new RedisConnectionError(reason, 'x')),
      SnapshotStoreError: (['invalid-url', 'unavailable', 'storage'] as const).map((reason) => new SnapshotStoreError(reason, 'x')),
      FeedWorkerError: (['crashed', 'timeout', 'failed'] as const).map((failure) => new FeedWorkerError(failure, 'x')),
      ConfigError: [new ConfigError('port', 'x')],
      UsageError: [new UsageError('x')],
      BinaryHttpError: [new BinaryHttpError('x')],
      LoadControlError: (['paused', 'load', 'crawler-recent', 'crawlers-busy', 'rate', 'address-rate', 'address-busy'] as const).map(
        (reason) => new LoadControlError(reason, 'x'),
      ),
    };
    for (const [name, made] of Object.entries(instances)) {
      assert.deepEqual(
        made.map((error) => error.code),
        CLASSES[name as keyof Classes].codes,
        name,
      );
    }
  });
});
