// Must NOT compile: the test type-checks it too and expects exactly this error, so that it can tell the
// shipped declarations from types that silently became `any`.
import { canonicalizeUrl } from 'sbkit';

export const length: number = canonicalizeUrl('http://example.com/');
