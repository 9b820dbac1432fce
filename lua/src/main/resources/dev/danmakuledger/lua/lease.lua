-- lease: take, renew or release a message-id node id (0..1023) with a TTL, so that
-- two live servers never share one (docs/architecture.md §5, Snowflake node id).
-- version: 1
--
-- KEYS[1]  owners  hash   node id -> owner              {dl:lease}:owners
-- KEYS[2]  expiry  zset   node id scored by expiry (ms)   {dl:lease}:expiry
-- ARGV[1]  operation: "take", "renew" or "release"
-- ARGV[2]  owner: any string of 1..256 bytes (stored as data)
-- ARGV[3]  TTL in milliseconds, decimal 1..86400000
-- ARGV[4]  node id, decimal 0..1023 (renew and release only)
--
-- Time comes from the Redis server (TIME), one clock for every server.
-- Returns, after dropping expired leases:
--   take     returns {1, id}: the owner's live id (renewed) or the lowest free id.
--   renew    returns {1, 1} if the owner holds id (expiry moved to now+TTL), else {1, 0}.
--   release  returns {1, 1} if the owner held id (now free), else {1, 0}.
-- Errors (nothing written): "BADARG <what>", "NOFREEID all 1024 node ids are leased".
local VERSION = 1
local MAX_ID = 1023

if #KEYS ~= 2 or #ARGV < 3 then
  return redis.error_reply("BADARG got " .. #KEYS .. " keys and " .. #ARGV .. " args, want 2 and 3..4")
end
local op, owner, ttl = ARGV[1], ARGV[2], ARGV[3]
if op ~= "take" and op ~= "renew" and op ~= "release" then
  return redis.error_reply("BADARG operation: want take, renew or release")
end
if #owner < 1 or #owner > 256 then
  return redis.error_reply("BADARG owner: want 1..256 bytes")
end
if #ttl > 8 or not string.match(ttl, "^[1-9]%d*$") or tonumber(ttl) > 86400000 then
  return redis.error_reply("BADARG ttl: want decimal milliseconds 1..86400000")
end
local id
if op ~= "take" then
  if #ARGV ~= 4 or #ARGV[4] > 4 or not string.match(ARGV[4], "^%d+$") or tonumber(ARGV[4]) > MAX_ID then
    return redis.error_reply("BADARG node id: want decimal 0..1023")
  end
  id = string.format("%d", tonumber(ARGV[4]))
elseif #ARGV ~= 3 then
  return redis.error_reply("BADARG take: want 3 args")
end

local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local expiresAt = now + tonumber(ttl)

for _, expired in ipairs(redis.call("ZRANGEBYSCORE", KEYS[2], "-inf", now)) do
  redis.call("HDEL", KEYS[1], expired)
  redis.call("ZREM", KEYS[2], expired)
end

if op == "renew" or op == "release" then
  if redis.call("HGET", KEYS[1], id) ~= owner then
    return { VERSION, 0 }
  end
  if op == "renew" then
    redis.call("ZADD", KEYS[2], expiresAt, id)
  else
    redis.call("HDEL", KEYS[1], id)
    redis.call("ZREM", KEYS[2], id)
  end
  return { VERSION, 1 }
end

local held = redis.call("HGETALL", KEYS[1])
for i = 1, #held, 2 do
  if held[i + 1] == owner then
    redis.call("ZADD", KEYS[2], expiresAt, held[i])
    return { VERSION, tonumber(held[i]) }
  end
end
for candidate = 0, MAX_ID do
  local field = string.format("%d", candidate)
  if redis.call("HEXISTS", KEYS[1], field) == 0 then
    redis.call("HSET", KEYS[1], field, owner)
    redis.call("ZADD", KEYS[2], expiresAt, field)
    return { VERSION, candidate }
  end
end
return redis.error_reply("NOFREEID all 1024 node ids are leased")
