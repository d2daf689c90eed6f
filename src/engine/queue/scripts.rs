//! The queue's atomic steps: one Lua script each, run by Redis as one command, so
//! that no two submitters, workers or reclaimers ever see a job half changed.
//!
//! Every script takes the key prefix as `ARGV[1]`. The keys, under it: `work` (the
//! stream of open jobs, consumer group `workers`; an entry is deleted when its job
//! ends, so its length is the number of open jobs), `job:ID` (a hash per job),
//! `tenant:T` (a sorted set of the tenant's job ids by submission time), `results:T`
//! (the tenant's result stream), `dead` (the dead-letter stream), `reclaim-cursor`.
//! Scripts name keys they compute, so the queue needs one Redis (not a cluster).

/// Functions every script shares.
const PRELUDE: &str = r#"
local P = ARGV[1]
local GROUP = 'workers'
local WORK = P .. 'work'
local DEAD = P .. 'dead'
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function ms(n) return string.format('%.0f', n) end
local function job_key(id) return P .. 'job:' .. id end

-- Ends a job: its stream entry acknowledged and deleted (the stream holds open jobs
-- only), its parts dropped, its outcome added to its tenant's result stream (and a
-- dead job to the dead-letter stream), the whole kept for the time to live.
local function close(id, state, ttl, result, err)
  local job = job_key(id)
  local entry = redis.call('HGET', job, 'entry')
  if entry then
    redis.call('XACK', WORK, GROUP, entry)
    redis.call('XDEL', WORK, entry)
  end
  local fields = redis.call('HKEYS', job)
  for _, f in ipairs(fields) do
    if string.sub(f, 1, 5) == 'part:' then redis.call('HDEL', job, f) end
  end
  redis.call('HDEL', job, 'token', 'entry')
  local now = now_ms()
  redis.call('HSET', job, 'state', state, 'finished_ms', ms(now))
  local message = {'id', id, 'state', state}
  if result then
    redis.call('HSET', job, 'result', result)
    table.insert(message, 'result')
    table.insert(message, result)
  end
  if err then
    redis.call('HSET', job, 'error', err)
    table.insert(message, 'error')
    table.insert(message, err)
  end
  local tenant = redis.call('HGET', job, 'tenant')
  local oldest = ms(math.max(now - ttl, 0)) .. '-0'
  redis.call('XADD', P .. 'results:' .. tenant, 'MINID', '~', oldest, '*', unpack(message))
  if state == 'dead' then
    redis.call('XADD', DEAD, 'MINID', '~', oldest, '*', 'id', id, 'tenant', tenant,
      'error', err or '', 'deliveries', redis.call('HGET', job, 'deliveries'))
  end
  redis.call('PEXPIRE', job, ttl)
end

-- Gives the job of stream entry `entry` a new lease, or ends it when it has used its
-- deliveries; drops an entry whose job has ended (or was queued again under another).
local function lease(entry, id, token, worker, max_deliveries, ttl)
  local job = job_key(id)
  local state = redis.call('HGET', job, 'state')
  if (state ~= 'queued' and state ~= 'running') or redis.call('HGET', job, 'entry') ~= entry then
    redis.call('XACK', WORK, GROUP, entry)
    redis.call('XDEL', WORK, entry)
    return {'gone', id}
  end
  local deliveries = redis.call('HINCRBY', job, 'deliveries', 1)
  if deliveries > max_deliveries then
    redis.call('HINCRBY', job, 'deliveries', -1)
    local last = redis.call('HGET', job, 'error') or 'its worker stopped or lost its lease each time'
    close(id, 'dead', ttl, nil, 'delivered ' .. (deliveries - 1) .. ' times; last error: ' .. last)
    return {'dead', id}
  end
  redis.call('HSET', job, 'state', 'running', 'token', token, 'worker', worker, 'leased_ms', ms(now_ms()))
  local reply = {'run', id, redis.call('HGET', job, 'kind'), redis.call('HGET', job, 'tenant'),
    redis.call('HGET', job, 'request'), tostring(deliveries)}
  local all = redis.call('HGETALL', job)
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, 5) == 'part:' then
      table.insert(reply, string.sub(all[i], 6))
      table.insert(reply, all[i + 1])
    end
  end
  return reply
end

-- Queues the job again under a new stream entry (at the end of the stream).
local function requeue(id)
  local job = job_key(id)
  local entry = redis.call('HGET', job, 'entry')
  redis.call('XACK', WORK, GROUP, entry)
  redis.call('XDEL', WORK, entry)
  local fresh = redis.call('XADD', WORK, '*', 'job', id)
  redis.call('HSET', job, 'state', 'queued', 'entry', fresh)
  redis.call('HDEL', job, 'token')
end

local function holds(id, token)
  return redis.call('HGET', job_key(id), 'token') == token
end
"#;

/// ARGV: prefix, id, tenant, kind, request, bound, time to live (ms), platform id.
/// Returns `{'queued'}`, `{'exists', state}` or `{'full', length}`.
pub const SUBMIT: &str = r#"
local id, tenant, kind, request = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local bound, ttl, platform_id = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
local job = job_key(id)
local state = redis.call('HGET', job, 'state')
if state then return {'exists', state} end
local length = redis.call('XLEN', WORK)
if length >= bound then return {'full', tostring(length)} end
local now = now_ms()
local entry = redis.call('XADD', WORK, '*', 'job', id)
redis.call('HSET', job, 'tenant', tenant, 'kind', kind, 'request', request, 'state', 'queued',
  'submitted_ms', ms(now), 'deliveries', 0, 'entry', entry, 'platform_id', platform_id)
local index = P .. 'tenant:' .. tenant
redis.call('ZADD', index, now, id)
-- Forgets, a few at a time, the ids of jobs that have expired.
local old = redis.call('ZRANGEBYSCORE', index, '-inf', now - ttl, 'LIMIT', 0, 16)
for _, o in ipairs(old) do
  if redis.call('EXISTS', job_key(o)) == 0 then redis.call('ZREM', index, o) end
end
return {'queued'}
"#;

/// ARGV: prefix, entry, id, token, worker, max deliveries, time to live (ms).
/// Returns what `lease` returns.
pub const LEASE: &str = r#"
return lease(ARGV[2], ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]))
"#;

/// ARGV: prefix, token, worker, max deliveries, time to live (ms), lease (ms).
/// Claims the first entry idle longer than a lease (from where the last reclaim
/// stopped) and leases its job; `{'none'}` when there is none.
pub const RECLAIM: &str = r#"
local token, worker, max_deliveries, ttl, idle = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local cursor_key = P .. 'reclaim-cursor'
local cursor = redis.call('GET', cursor_key) or '0-0'
local claimed = redis.call('XAUTOCLAIM', WORK, GROUP, worker, idle, cursor, 'COUNT', 1)
redis.call('SET', cursor_key, claimed[1])
local entries = claimed[2]
if #entries == 0 then return {'none'} end
local entry, fields = entries[1][1], entries[1][2]
if not fields or fields[2] == nil then
  redis.call('XACK', WORK, GROUP, entry)
  redis.call('XDEL', WORK, entry)
  return {'none'}
end
return lease(entry, fields[2], token, worker, max_deliveries, ttl)
"#;

/// ARGV: prefix, id, token, worker. Resets the entry's idle time (so no reclaimer takes
/// it) if the token still holds the lease: 1, else 0.
pub const RENEW: &str = r#"
local id, token, worker = ARGV[2], ARGV[3], ARGV[4]
if not holds(id, token) then return 0 end
redis.call('XCLAIM', WORK, GROUP, worker, 0, redis.call('HGET', job_key(id), 'entry'), 'JUSTID')
return 1
"#;

/// ARGV: prefix, id, token, index, part. 1 if kept, 0 if the lease is lost.
pub const SAVE_PART: &str = r#"
local id, token = ARGV[2], ARGV[3]
if not holds(id, token) then return 0 end
redis.call('HSET', job_key(id), 'part:' .. ARGV[4], ARGV[5])
return 1
"#;

/// ARGV: prefix, id, token, result, time to live (ms). 1 if done, 0 if the lease is
/// lost (nothing written).
pub const FINISH: &str = r#"
local id, token = ARGV[2], ARGV[3]
if not holds(id, token) then return 0 end
close(id, 'done', tonumber(ARGV[5]), ARGV[4], nil)
return 1
"#;

/// ARGV: prefix, id, token, error, max deliveries, time to live (ms).
/// Returns 'requeued', 'dead' or 'lost'.
pub const FAIL: &str = r#"
local id, token, err = ARGV[2], ARGV[3], ARGV[4]
if not holds(id, token) then return 'lost' end
local job = job_key(id)
redis.call('HSET', job, 'error', err)
if tonumber(redis.call('HGET', job, 'deliveries')) >= tonumber(ARGV[5]) then
  close(id, 'dead', tonumber(ARGV[6]), nil,
    'delivered ' .. redis.call('HGET', job, 'deliveries') .. ' times; last error: ' .. err)
  return 'dead'
end
requeue(id)
return 'requeued'
"#;

/// ARGV: prefix, id, token. Queues the job again without counting the delivery: 1, or
/// 0 if the lease is lost.
pub const RELEASE: &str = r#"
local id, token = ARGV[2], ARGV[3]
if not holds(id, token) then return 0 end
redis.call('HINCRBY', job_key(id), 'deliveries', -1)
requeue(id)
return 1
"#;

/// ARGV: prefix, id, tenant, time to live (ms).
/// Returns 'cancelled', 'unknown' or the final state it had.
pub const CANCEL: &str = r#"
local id, tenant = ARGV[2], ARGV[3]
local job = job_key(id)
if redis.call('HGET', job, 'tenant') ~= tenant then return 'unknown' end
local state = redis.call('HGET', job, 'state')
if state ~= 'queued' and state ~= 'running' then return state end
close(id, 'cancelled', tonumber(ARGV[4]), nil, nil)
return 'cancelled'
"#;

/// A script's text with the shared functions before it.
pub fn full(script: &str) -> String {
    format!("{PRELUDE}\n{script}")
}
