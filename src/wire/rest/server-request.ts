// Server side: an HTTP request, as any framework can describe it, to the RPC it calls, its request
// message, the encoding the answer must use and the API key it carried. Every form of docs/api.md §3 is
// accepted: v5 GET query strings (Firefox, the npm client, our client), `$req` envelopes (Chromium v5,
// Chromium and Firefox v4), binary POST bodies (the Go client) and JSON POST bodies (the npm client).
// Whatever arrives, the result is a decoded request or a thrown WireError.

import type { DescMessage, Message } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';
import type { GetHashListRequest } from '../../proto/v5.ts';
import type { CreateSubmissionRequest } from '../../proto/webrisk.ts';
import { decodeBase64 } from '../base64.ts';
import type { WireEncoding } from '../encoding.ts';
import { chooseResponseEncoding, contentTypeEncoding } from '../encoding.ts';
import { decodePayload } from '../payload.ts';
import type { QueryParameter } from './query-string.ts';
import { parseQueryString } from './query-string.ts';
import { checkRequestRules } from './request-rules.ts';
import type { RpcCall } from './routes.ts';
import { matchRoute } from './routes.ts';
import { readPlainSearch } from '../protobuf/search-request-fast.ts';
import { applyQueryParameters } from './transcoding.ts';
import { WireError } from '../wire-error.ts';

/** An HTTP request as the server framework received it. */
export interface WireRequest {
  method: string;
  /** Path and query string as sent, e.g. `/v5/hashes:search?key=K&hashPrefixes=v9APjg%3D%3D`. */
  url: string;
  /** Header names in any case (Node's IncomingHttpHeaders fits). */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** True when every header name is in lower case already, as Node gives them: nothing is lowered then. */
  headerNamesLowerCase?: boolean;
  body: Uint8Array;
}

export interface DecodeWireRequestOptions {
  /** Largest request payload accepted, in bytes, for a body or a decoded `$req`. */
  maxBodyBytes?: number;
  /**
   * Called with the request's API key (`key=` or `X-Goog-Api-Key`) once the path is known and before
   * the payload is decoded; throws to refuse. Google checks the key first: a malformed request without
   * a valid key is refused for the key.
   */
  checkApiKey?: (key: string | undefined) => void;
}

/**
 * Real requests are tiny: Chromium's fullHashes:find with a few dozen prefixes and one state per list
 * is a few KiB; a v5 request has no body at all. 256 KiB leaves room and still bounds the work.
 */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

export type DecodedWireRequest = RpcCall & {
  /** The encoding the answer must use (encoding.ts, chooseResponseEncoding). */
  responseEncoding: WireEncoding;
  /** True when a JSON answer must give enums by number (`$alt=json;enum-encoding=int`, Google's client libraries). */
  enumsAsNumbers: boolean;
  /** `key=` from the query or the `X-Goog-Api-Key` header; the server decides what to do with it. */
  apiKey: string | undefined;
};

// Google's system parameters that sbkit reads. Each may appear once; other unknown parameters are
// ignored (transcoding.ts).
const SYSTEM_PARAMETERS = ['key', 'alt', '$alt', '$ct', '$req', '$httpMethod'] as const;
type SystemParameter = (typeof SYSTEM_PARAMETERS)[number];
const IS_SYSTEM_PARAMETER: ReadonlySet<string> = new Set(SYSTEM_PARAMETERS);

/**
 * Decodes any request form of docs/api.md §3. The plain hashes:search GET of browsers takes a shortcut
 * (search-request-fast.ts) to the same result; everything else goes through decodeWireRequestInFull.
 */
export function decodeWireRequest(request: WireRequest, options: DecodeWireRequestOptions = {}): DecodedWireRequest {
  if (request.method === 'GET' && request.body.byteLength === 0) {
    const headers = request.headerNamesLowerCase === true ? request.headers : lowercaseHeaders(request.headers);
    const plain = header(headers, 'x-http-method-override') === undefined ? readPlainSearch(request.url) : undefined;
    if (plain !== undefined) {
      const apiKey = plain.apiKey ?? header(headers, 'x-goog-api-key');
      options.checkApiKey?.(apiKey);
      return {
        rpc: 'SearchHashes',
        apiVersion: plain.apiVersion,
        request: plain.request,
        responseEncoding: chooseResponseEncoding({
          alt: undefined,
          envelopeContentType: undefined,
          contentType: header(headers, 'content-type'),
          accept: header(headers, 'accept'),
          googleApiClient: header(headers, 'x-goog-api-client') !== undefined,
        }),
        enumsAsNumbers: false,
        apiKey,
      };
    }
  }
  return decodeWireRequestInFull(request, options);
}

/** Decodes any request form of docs/api.md §3 by the general rules, whatever it is. */
export function decodeWireRequestInFull(request: WireRequest, options: DecodeWireRequestOptions = {}): DecodedWireRequest {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (request.body.byteLength > maxBodyBytes) {
    throw WireError.payloadTooLarge('the request body', request.body.byteLength, maxBodyBytes);
  }
  const queryStart = request.url.indexOf('?');
  const path = queryStart < 0 ? request.url : request.url.slice(0, queryStart);
  const parameters = queryStart < 0 ? [] : parseQueryString(request.url.slice(queryStart + 1));
  const system = systemParameters(parameters);
  const headers = request.headerNamesLowerCase === true ? request.headers : lowercaseHeaders(request.headers);

  // docs/api.md §3: Chromium and Firefox send v4 POSTs as GET with `X-HTTP-Method-Override: POST` (Firefox
  // also puts `$httpMethod=POST` in the URL). An empty override is no override.
  const method = (header(headers, 'x-http-method-override') || system.$httpMethod || request.method).trim().toUpperCase();
  const { rpc, apiVersion, listName, project, encodedRequest } = matchRoute(method, path);
  const apiKey = system.key ?? header(headers, 'x-goog-api-key');
  options.checkApiKey?.(apiKey);
  const contentType = header(headers, 'content-type');
  const responseEncoding = chooseResponseEncoding({
    alt: system.alt ?? system.$alt,
    envelopeContentType: system.$ct,
    contentType,
    accept: header(headers, 'accept'),
    // No browser speaks Web Risk: its answers take the REST default, JSON, unless the request asks otherwise.
    googleApiClient: rpc.protocol === 'webrisk' || header(headers, 'x-goog-api-client') !== undefined,
  });

  const schema: DescMessage = rpc.requestSchema;
  let message: Message;
  if (encodedRequest !== undefined) {
    message = decodeEnvelope(schema, encodedRequest, undefined, maxBodyBytes);
  } else if (system.$req !== undefined) {
    if (request.body.byteLength > 0) {
      throw new WireError('INVALID_ARGUMENT', 'the request came both in $req and in the body; send it in one of them');
    }
    message = decodeEnvelope(schema, system.$req, system.$ct, maxBodyBytes);
  } else if (rpc.httpMethod === 'POST' && rpc.bodyField !== undefined) {
    // The body is one field of the request (the HTTP rule's `body: "submission"`), the rest of it the path's.
    const field = schema.fields.find((f) => f.name === rpc.bodyField);
    if (field?.fieldKind !== 'message') throw new TypeError(`${schema.typeName} has no message field ${rpc.bodyField}`);
    message = create(schema);
    if (request.body.byteLength > 0) {
      (message as unknown as Record<string, Message>)[field.localName] = decodePayload(
        field.message,
        request.body,
        bodyEncoding(contentType, request.body),
        'the request body',
      );
    }
  } else if (rpc.httpMethod === 'POST') {
    message = decodePayload(schema, request.body, bodyEncoding(contentType, request.body), 'the request body');
  } else {
    if (request.body.byteLength > 0) {
      throw new WireError('INVALID_ARGUMENT', `${rpc.paths[0]} takes its parameters in the query string; the request body must be empty`);
    }
    message = create(schema);
  }
  if (rpc.httpMethod === 'GET') {
    applyQueryParameters(schema, message, fieldParameters(parameters));
  }
  // The name in the path is the one that counts: a `name` in the query or in `$req` cannot redirect the
  // request to another list.
  if (listName !== undefined) (message as GetHashListRequest).name = listName;
  // So is the project of a Web Risk resource.
  if (project !== undefined) (message as CreateSubmissionRequest).parent = `projects/${project}`;

  const call = { rpc: rpc.id, apiVersion, request: message } as RpcCall;
  checkRequestRules(call);
  return { ...call, responseEncoding, enumsAsNumbers: enumsAsNumbersIn(system.alt ?? system.$alt), apiKey };
}

/** Whether `alt` asks for enums by number: `json;enum-encoding=int`, parameters after `;` in any order. */
function enumsAsNumbersIn(alt: string | undefined): boolean {
  if (alt === undefined) return false;
  return alt
    .split(';')
    .slice(1)
    .some((parameter) => parameter.trim().toLowerCase() === 'enum-encoding=int');
}

// `$req` carries the serialized request, base64url (padded or not; any base64 is accepted), typed by
// `$ct` (binary protobuf when absent, which is what browsers mean).
function decodeEnvelope(schema: DescMessage, envelope: string, envelopeContentType: string | undefined, maxBodyBytes: number): Message {
  // Checked before decoding so that a huge `$req` costs nothing: 4 characters carry 3 bytes.
  const decodedSize = Math.floor((envelope.length * 3) / 4);
  if (decodedSize > maxBodyBytes + 2) throw WireError.payloadTooLarge('$req', decodedSize, maxBodyBytes);
  const bytes = decodeBase64(envelope.replaceAll(' ', '+'), '$req');
  if (bytes.byteLength > maxBodyBytes) throw WireError.payloadTooLarge('$req', bytes.byteLength, maxBodyBytes);
  return decodePayload(schema, bytes, contentTypeEncoding(envelopeContentType) ?? 'protobuf', '$req');
}

// A POST body is JSON or binary by its Content-Type; without a usable one (curl's default form type,
// or none), a body that starts with `{` is JSON: a binary request cannot start with 0x7B, which would
// be field 15 as a group, a field none of our requests has.
function bodyEncoding(contentType: string | undefined, body: Uint8Array): WireEncoding {
  const declared = contentTypeEncoding(contentType);
  if (declared !== undefined) return declared;
  const first = body.find((byte) => byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d);
  return first === 0x7b ? 'json' : 'protobuf';
}

function systemParameters(parameters: readonly QueryParameter[]): Partial<Record<SystemParameter, string>> {
  const found: Partial<Record<SystemParameter, string>> = {};
  for (const { name, value } of parameters) {
    if (!IS_SYSTEM_PARAMETER.has(name)) continue;
    const key = name as SystemParameter;
    if (found[key] !== undefined) {
      throw new WireError('INVALID_ARGUMENT', `query parameter ${name} is given more than once; it takes a single value`);
    }
    found[key] = value;
  }
  return found;
}

function fieldParameters(parameters: readonly QueryParameter[]): QueryParameter[] {
  const fields: QueryParameter[] = [];
  for (const parameter of parameters) if (!IS_SYSTEM_PARAMETER.has(parameter.name)) fields.push(parameter);
  return fields;
}

/**
 * The API key a request carries (`key=` in the query, else `X-Goog-Api-Key`), read without decoding the
 * request: what load control keys budgets on before the request is decoded. Undefined when there is none
 * or it cannot be read; a request whose key is malformed is refused when it is decoded.
 */
export function apiKeyOf(url: string, headers: WireRequest['headers']): string | undefined {
  const queryStart = url.indexOf('?');
  if (queryStart >= 0) {
    for (const segment of url.slice(queryStart + 1).split('&')) {
      if (!segment.startsWith('key=')) continue;
      try {
        return decodeURIComponent(segment.slice('key='.length).replaceAll('+', ' '));
      } catch {
        return undefined;
      }
    }
  }
  return header(lowercaseHeaders(headers), 'x-goog-api-key');
}

/** A header's value (the first, when repeated); `name` in lower case. */
function header(headers: WireRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' || value === undefined ? value : value[0];
}

/** Header names in lower case; Node's are already, so this copies only for other callers (tests, adapters). */
function lowercaseHeaders(headers: WireRequest['headers']): WireRequest['headers'] {
  const names = Object.keys(headers);
  let lowercase = true;
  for (const name of names) if (name !== name.toLowerCase()) lowercase = false;
  if (lowercase) return headers;
  const lowered: Record<string, string | readonly string[] | undefined> = {};
  for (const name of names) lowered[name.toLowerCase()] ??= headers[name];
  return lowered;
}
