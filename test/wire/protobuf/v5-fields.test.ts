import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DescMessage } from '@bufbuild/protobuf';
import { DurationSchema } from '@bufbuild/protobuf/wkt';
import * as v5 from '../../../src/proto/v5.ts';
import { V5_FIELDS } from '../../../src/wire/protobuf/v5-fields.ts';

/** The generated descriptor of each message the table names. */
function schemaOf(message: string): DescMessage {
  if (message === 'Duration') return DurationSchema;
  const schema = (v5 as Record<string, unknown>)[`${message}Schema`];
  assert.ok(schema !== undefined, `proto/v5.ts has no ${message}Schema`);
  return schema as DescMessage;
}

describe('V5_FIELDS', () => {
  it('numbers every field as the .proto does, by the name the generated code gives it', () => {
    for (const [message, fields] of Object.entries(V5_FIELDS)) {
      const schema = schemaOf(message);
      for (const [name, number] of Object.entries(fields)) {
        assert.equal(schema.fields.find((field) => field.localName === name)?.number, number, `${message}.${name}`);
      }
    }
  });
});
