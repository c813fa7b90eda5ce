// The Lua scripts of the shared snapshot store (redis-snapshot-store.ts): each runs alone in Redis, so
// that a list's history, state and contents change together or not at all.

/*
 * Every change to a list's history numbers it: a serial per list, in the list's state hash, goes up by
 * one per publication that changes the history, and each snapshot's content records the serial of its
 * latest publication. The state hash also holds an epoch, a random token written once: a Redis that
 * restarted empty, or was flushed, has another epoch (or none) than an instance remembers, which is
 * how instances tell that Redis lost what they hold. The scripts answer the list's state:
 *   { 'state', epoch ('' before any), ids oldest first, their serials, versions written back,
 *     the list's newest mirror stamp ('' for none) }
 */
const STATE_ANSWER = `
local function state_answer(history, state, received, prefix, written)
  local ids = redis.call('LRANGE', history, 0, -1)
  local serials = {}
  for i, id in ipairs(ids) do serials[i] = redis.call('HGET', prefix .. id, 'serial') or '0' end
  return {'state', redis.call('HGET', state, 'epoch') or '', ids, serials, tostring(written), redis.call('GET', received) or ''}
end
`;

/*
 * Reading a list's state.
 *   KEYS: history, state, the list's newest mirror stamp
 *   ARGV: content key prefix
 */
export const READ_SCRIPT = `${STATE_ANSWER}
return state_answer(KEYS[1], KEYS[2], KEYS[3], ARGV[1], 0)
`;

/*
 * Publishing, atomically (a script runs alone in Redis): the snapshot's content is stored unless it is
 * there already (ids are content-derived: same id, same content), its id moves to the newest end of the
 * list's history with the next serial, and the oldest beyond `keep` leave the history along with their
 * content. Without content the script stores nothing and answers nil when the content is missing, so
 * that publishing a snapshot Redis holds already costs no upload. A publication marked `ordered` (a
 * mirror's, stamped with the time its upstream answered) leaves the history alone when the list's
 * newest stamp is later (a stamp per list, not per content: a content that comes back is as new as its
 * latest publication). An instance that holds a shared history says which epoch it has seen; when
 * Redis lost that history the script changes nothing and answers { 'lost' }, so that the instance
 * writes its history back first (WRITE_BACK_SCRIPT) rather than start the list over.
 *   KEYS: history, the snapshot's content, the list's newest mirror stamp, the list's state
 *   ARGV: id, keep, content key prefix, createdAt, content field, ordered ('1' or '0'), a new epoch,
 *         the epoch seen ('' for none), a history held ('1' or '0')[, content]
 * The keys of one list share the hash tag {name}, so the script touches one cluster slot.
 */
export const PUBLISH_SCRIPT = `${STATE_ANSWER}
local history, content, received, state = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, keep, prefix, createdAt, field = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), ARGV[5]
local ordered = ARGV[6] == '1'
if ARGV[9] == '1' then
  local epoch = redis.call('HGET', state, 'epoch')
  if redis.call('LLEN', history) == 0 or (ARGV[8] ~= '' and epoch ~= ARGV[8]) then return {'lost'} end
end
if ordered then
  local currentAt = tonumber(redis.call('GET', received))
  if currentAt and currentAt > createdAt and redis.call('LINDEX', history, -1) ~= id then
    return state_answer(history, state, received, prefix, 0)
  end
end
if redis.call('HEXISTS', content, field) == 0 then
  if ARGV[10] == nil then return false end
  redis.call('HSET', content, field, ARGV[10], 'createdAt', ARGV[4])
  redis.call('HDEL', content, 'kept', 'width')
end
if ordered then
  local currentAt = tonumber(redis.call('GET', received))
  if not currentAt or currentAt < createdAt then redis.call('SET', received, ARGV[4]) end
end
if redis.call('LINDEX', history, -1) ~= id then
  redis.call('HSET', content, 'serial', redis.call('HINCRBY', state, 'serial', 1))
  redis.call('LREM', history, 0, id)
  redis.call('RPUSH', history, id)
  while redis.call('LLEN', history) > keep do
    redis.call('DEL', prefix .. redis.call('LPOP', history))
  end
end
redis.call('HSETNX', state, 'epoch', ARGV[7])
return state_answer(history, state, received, prefix, 0)
`;

/*
 * Writing back the snapshots an instance holds, atomically: the union of the history in Redis and the
 * instance's, each snapshot at the larger of the serials it has in either, ordered by serial (ties: by
 * place in its history, then by id), the newest `keep` kept. The union does not depend on who writes
 * first or how often, so that instances writing back the same history at the same time converge, and
 * an instance whose history is older than what Redis holds (smaller serials) adds its older versions
 * without taking the list back. Content is written for the snapshots kept that Redis lacks; sent
 * without it, the script changes nothing and answers { 'need', ids } when it lacks any. Written into a
 * history Redis lost, the serials go on LOST_SERIAL_GAP past the newest written back: another instance
 * that has not written back yet may hold a later serial than this one (it was ahead), and a publication
 * made meanwhile must not tie with it (ordered then by id, it could sort before a version it followed).
 *   KEYS: history, the list's state, the list's newest mirror stamp
 *   ARGV: keep, content key prefix, a new epoch, the mirror stamp of the instance's current snapshot
 *         ('' for none), n, then per snapshot: id, serial, content field ('fullHashes', 'served', or
 *         'kept': the served hashes of a snapshot whose full hashes are gone), createdAt, hash width,
 *         content sent ('1' or '0'), content
 */
/** More publications than an instance may lag behind another: serials after a loss start this far on. */
const LOST_SERIAL_GAP = 1_000_000;

export const WRITE_BACK_SCRIPT = `${STATE_ANSWER}
local history, state, received = KEYS[1], KEYS[2], KEYS[3]
local keep, prefix, n = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[5])
local serial, place, offered, before = {}, {}, {}, {}
local stored = redis.call('LRANGE', history, 0, -1)
for i, id in ipairs(stored) do
  serial[id] = tonumber(redis.call('HGET', prefix .. id, 'serial') or '0')
  place[id] = i
  before[id] = true
end
for e = 0, n - 1 do
  local at = 6 + e * 7
  local id, s = ARGV[at], tonumber(ARGV[at + 1])
  offered[id] = at
  if serial[id] == nil or serial[id] < s then serial[id] = s end
  if place[id] == nil then place[id] = e + 1 end
end
local all = {}
for id in pairs(serial) do all[#all + 1] = id end
table.sort(all, function(a, b)
  if serial[a] ~= serial[b] then return serial[a] < serial[b] end
  if place[a] ~= place[b] then return place[a] < place[b] end
  return a < b
end)
local kept, keeps = {}, {}
for i = math.max(1, #all - keep + 1), #all do
  kept[#kept + 1] = all[i]
  keeps[all[i]] = true
end
local writes, need = {}, {}
for _, id in ipairs(kept) do
  local at = offered[id]
  if at then
    local key, field = prefix .. id, ARGV[at + 2]
    local has = redis.call('HEXISTS', key, field) == 1
    if field == 'kept' and not has then has = redis.call('HEXISTS', key, 'fullHashes') == 1 end
    if not has then
      if ARGV[at + 5] == '1' then writes[#writes + 1] = at else need[#need + 1] = id end
    end
  end
end
if #need > 0 then return {'need', need} end
for _, at in ipairs(writes) do
  local key, field = prefix .. ARGV[at], ARGV[at + 2]
  if field == 'kept' then
    redis.call('HSET', key, 'kept', ARGV[at + 6], 'width', ARGV[at + 4], 'createdAt', ARGV[at + 3])
  else
    redis.call('HSET', key, field, ARGV[at + 6], 'createdAt', ARGV[at + 3])
    redis.call('HDEL', key, 'kept', 'width')
  end
end
local newest, written = 0, 0
for _, id in ipairs(kept) do
  redis.call('HSET', prefix .. id, 'serial', serial[id])
  if serial[id] > newest then newest = serial[id] end
  if not before[id] then written = written + 1 end
end
for _, id in ipairs(stored) do
  if not keeps[id] then redis.call('DEL', prefix .. id) end
end
if #stored == 0 then newest = newest + ${LOST_SERIAL_GAP} end
redis.call('DEL', history)
if #kept > 0 then redis.call('RPUSH', history, unpack(kept)) end
if newest > tonumber(redis.call('HGET', state, 'serial') or '0') then redis.call('HSET', state, 'serial', newest) end
redis.call('HSETNX', state, 'epoch', ARGV[3])
if ARGV[4] ~= '' then
  local currentAt = tonumber(redis.call('GET', received))
  if not currentAt or currentAt < tonumber(ARGV[4]) then redis.call('SET', received, ARGV[4]) end
end
return state_answer(history, state, received, prefix, written)
`;
