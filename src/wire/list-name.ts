// List names as they arrive over the wire: in paths (`hashList/{name}`) and `names=` parameters. The
// grammar is the one of src/lists, so that a name a client may ask for is one a server may publish.

import { listNameProblem, listNameReason } from '../lists/list-name.ts';
import { WireError } from './wire-error.ts';

/** Throws INVALID_ARGUMENT unless `name` is a list name; `what` says where in the request it came from. */
export function checkListName(name: string, what: string): void {
  const problem = listNameProblem(name);
  if (problem !== undefined) throw new WireError('INVALID_ARGUMENT', `${what}: ${listNameReason(name, problem)}`);
}
