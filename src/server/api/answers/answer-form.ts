// The form an answer's bytes take: its encoding, and for JSON whether enums come by name or by number
// (`$alt=json;enum-encoding=int`, Google's client libraries). Every cache of encoded answers keys on it,
// so that an answer with enum names is never served to a request that asked for numbers.

import type { WireEncoding } from '../../../wire/encoding.ts';

export type AnswerForm = WireEncoding | 'json, enums as numbers';

/** The form of the answer to a request decoded with these (DecodedWireRequest). */
export function answerFormOf(encoding: WireEncoding, enumsAsNumbers: boolean): AnswerForm {
  return encoding === 'json' && enumsAsNumbers ? 'json, enums as numbers' : encoding;
}
