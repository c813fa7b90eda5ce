// Query parameters ↔ message fields, as gRPC transcoding binds them for the v5 GET methods (docs/api.md §1:
// "The URL uses gRPC Transcoding syntax"): a parameter names a field by its JSON or proto name, nested
// fields by a dotted path (`sizeConstraints.maxUpdateEntries`), a repeated field by repeating the
// parameter (`names=a&names=b`), bytes as base64. Repeated values keep their order, so Firefox's
// positional `version=` placeholders survive as empty entries (docs/api.md §3).

import type { DescEnum, DescField, DescMessage, Message } from '@bufbuild/protobuf';
import { ScalarType } from '@bufbuild/protobuf';
import type { ReflectMessage } from '@bufbuild/protobuf/reflect';
import { reflect } from '@bufbuild/protobuf/reflect';
import { decodeBase64, encodeBase64Url } from '../base64.ts';
import type { QueryParameter } from './query-string.ts';
import { WireError } from '../wire-error.ts';

/**
 * Sets the fields of `message` that `parameters` name. Parameters that name no field are skipped: they
 * are system parameters (`key`, `alt`, `prettyPrint`, …) or extras that real clients add, and Google's
 * own front end would refuse the latter, which would only break those clients. A field that cannot come
 * from a query, a singular field given twice, or a value that does not parse is INVALID_ARGUMENT.
 */
export function applyQueryParameters(schema: DescMessage, message: Message, parameters: readonly QueryParameter[]): void {
  const root = reflect(schema, message);
  const singularSeen = new Set<string>();
  for (const { name, value } of parameters) {
    const path = resolveFieldPath(schema, name);
    if (path === undefined) continue;
    const leaf = path[path.length - 1];
    if (leaf === undefined) continue;
    const target = path.slice(0, -1).reduce(childMessage, root);
    if (leaf.fieldKind === 'list') {
      const list = target.get(leaf);
      const what = `${name}[${list.size}]`;
      if (leaf.listKind === 'scalar') list.add(scalarFromQuery(leaf.scalar, value, what));
      else if (leaf.listKind === 'enum') list.add(enumFromQuery(leaf.enum, value, what));
      else throw unbindable(name);
    } else if (leaf.fieldKind === 'scalar' || leaf.fieldKind === 'enum') {
      // Keyed by field numbers, so that `pageSize` and `page_size` count as the same field.
      const key = path.map((field) => field.number).join('.');
      if (singularSeen.has(key)) {
        throw new WireError('INVALID_ARGUMENT', `query parameter ${name} is given more than once; it takes a single value`);
      }
      singularSeen.add(key);
      target.set(leaf, leaf.fieldKind === 'enum' ? enumFromQuery(leaf.enum, value, name) : scalarFromQuery(leaf.scalar, value, name));
    } else {
      throw unbindable(name);
    }
  }
}

/**
 * The query parameters for a message, the inverse of applyQueryParameters: set fields in declaration
 * order under their JSON names, every element of repeated fields (empty ones included, to keep
 * positions), bytes as unpadded base64url (SB-13), enums by number (as Google's own REST clients send them).
 */
export function queryParametersOf(schema: DescMessage, message: Message): QueryParameter[] {
  const parameters: QueryParameter[] = [];
  collectParameters(reflect(schema, message), '', parameters);
  return parameters;
}

function collectParameters(message: ReflectMessage, prefix: string, out: QueryParameter[]): void {
  for (const field of message.fields) {
    const name = prefix + field.jsonName;
    if (field.fieldKind === 'list' && field.listKind === 'scalar') {
      for (const item of message.get(field)) out.push({ name, value: scalarToQuery(field.scalar, item, name) });
    } else if (field.fieldKind === 'list' && field.listKind === 'enum') {
      for (const item of message.get(field)) out.push({ name, value: String(item) });
    } else if (field.fieldKind === 'scalar' && message.isSet(field)) {
      out.push({ name, value: scalarToQuery(field.scalar, message.get(field), name) });
    } else if (field.fieldKind === 'enum' && message.isSet(field)) {
      out.push({ name, value: String(message.get(field)) });
    } else if (field.fieldKind === 'message' && message.isSet(field)) {
      collectParameters(message.get(field), `${name}.`, out);
    } else if (message.isSet(field)) {
      throw new TypeError(`${message.desc.typeName}.${field.name} cannot travel in a query string`);
    }
  }
}

/**
 * Field paths already resolved, per message type. Only names that do name fields are kept, so the memo
 * is bounded by the schema, whatever names requests make up.
 */
const resolvedPaths = new WeakMap<DescMessage, Map<string, DescField[]>>();

// The fields a dotted parameter name walks through, or undefined when some segment names no field.
function resolveFieldPath(schema: DescMessage, name: string): DescField[] | undefined {
  let known = resolvedPaths.get(schema);
  if (known === undefined) {
    known = new Map();
    resolvedPaths.set(schema, known);
  }
  const memo = known.get(name);
  if (memo !== undefined) return memo;
  const path = walkFieldPath(schema, name);
  if (path !== undefined) known.set(name, path);
  return path;
}

function walkFieldPath(schema: DescMessage, name: string): DescField[] | undefined {
  const path: DescField[] = [];
  let desc: DescMessage | undefined = schema;
  for (const segment of name.split('.')) {
    if (desc === undefined) throw unbindable(name);
    const field: DescField | undefined = desc.fields.find((f) => f.jsonName === segment || f.name === segment);
    if (field === undefined) return undefined;
    path.push(field);
    desc = field.fieldKind === 'message' ? field.message : undefined;
  }
  return path;
}

function childMessage(parent: ReflectMessage, field: DescField): ReflectMessage {
  if (field.fieldKind !== 'message') throw new TypeError(`${field.name} is not a message field`);
  if (parent.isSet(field)) return parent.get(field);
  const child = reflect(field.message);
  parent.set(field, child);
  return child;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

// The scalar types that the v5 GET requests use; others are refused rather than guessed at.
function scalarFromQuery(type: ScalarType, value: string, what: string): string | Uint8Array | number {
  switch (type) {
    case ScalarType.STRING:
      return value;
    case ScalarType.BYTES:
      // An unescaped `+` of standard base64 reads as a space in a query string (query-string.ts).
      return decodeBase64(value.replaceAll(' ', '+'), what);
    case ScalarType.INT32: {
      const n = /^[+-]?\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
      if (!(n >= INT32_MIN && n <= INT32_MAX)) {
        throw new WireError('INVALID_ARGUMENT', `${what} must be a whole number between ${INT32_MIN} and ${INT32_MAX}`);
      }
      return n;
    }
    default:
      throw unbindable(what);
  }
}

/**
 * An enum value as gRPC transcoding takes it: by name (`MALWARE`), or by number (`1`, which Google's
 * client libraries send with `$alt=json;enum-encoding=int`). A number the enum does not name is kept,
 * proto3 enums being open; the handler decides what it means.
 */
function enumFromQuery(desc: DescEnum, value: string, what: string): number {
  if (/^[+-]?\d{1,10}$/.test(value)) {
    const n = Number(value);
    if (n >= INT32_MIN && n <= INT32_MAX) return n;
  }
  const named = desc.values.find((v) => v.name === value);
  if (named !== undefined) return named.number;
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  const names = desc.values.map((v) => v.name).join(', ');
  throw new WireError(
    'INVALID_ARGUMENT',
    `${what} is ${JSON.stringify(shown)}, which is no ${desc.name}: use one of ${names}, or its number`,
  );
}

function scalarToQuery(type: ScalarType, value: unknown, what: string): string {
  if (type === ScalarType.STRING && typeof value === 'string') return value;
  if (type === ScalarType.BYTES && value instanceof Uint8Array) return encodeBase64Url(value);
  if (type === ScalarType.INT32 && typeof value === 'number') return String(value);
  throw new TypeError(`${what} cannot travel in a query string`);
}

function unbindable(name: string): WireError {
  return new WireError('INVALID_ARGUMENT', `query parameter ${name} names a field that cannot be set from a query string`);
}
