-- admit: atomic dedupe by idempotency key and next per-room sequence number
-- (docs/architecture.md §5, check 2; contract: docs/lua-scripts.md).
-- version: 2
--
-- A room's entries live in one hash per window of TTL seconds, a field per idempotency key: a
-- call reads the current and the previous window and writes the current one, so an entry is
-- remembered for between one and two TTLs, and one HSET stores a whole call's new entries.
--
-- KEYS[1]          room counter                          {r:<room>}:seq
-- KEYS[2]          entries of the current window w       {r:<room>}:w:<w>
-- KEYS[3]          entries of window w-1                 {r:<room>}:w:<w-1>
-- KEYS[4]          entries of window w-2, past their life and unlinked here (freed off the
--                  main thread)                          {r:<room>}:w:<w-2>
-- ARGV[1]          when KEYS[2] expires: unix seconds (w + 2) * TTL, decimal 1..2^53-1
-- ARGV[3i-1]       item i's idempotency key, the hash field, 1..4096 bytes   (i = 1..n, n >= 1)
-- ARGV[3i]         item i's content hash, 1..128 characters [0-9A-Za-z]
-- ARGV[3i+1]       item i's candidate message id, decimal 0..9223372036854775807
--
-- Entry value: "<seq>|<messageId>|<contentHash>".
-- Returns {2, "NEED_SEED"} when the room counter is missing; nothing is written.
-- Otherwise {2, "OK", statuses, firstSeq, seq_a, messageId_a, seq_b, messageId_b, ...}:
--   statuses   a string of n characters, character i for item i:
--     N  NEW        entry was absent; stored with the candidate id and the next seq
--     D  DUPLICATE  entry exists with the same content hash
--     C  CONFLICT   entry exists with another content hash
--   firstSeq   the seq of the first NEW item (integer); the k-th NEW item has firstSeq + k - 1
--              (0 when no item is NEW)
--   then, for each D or C item in item order, the ORIGINAL seq and message id (decimal strings).
-- A key repeated within one call is a DUPLICATE (or CONFLICT) of its first occurrence. Re-running
-- a call that already ran returns every item as DUPLICATE of itself: same seq, same (own
-- candidate) message id.
-- Errors (nothing written): "BADARG <what>", "CORRUPT <what>".
-- Input reaches Redis only as KEYS/ARGV values; no value is ever evaluated as code.
local VERSION = 2
local call, match, format, unpack = redis.call, string.match, string.format, unpack

local n = (#ARGV - 1) / 3
if #KEYS ~= 4 or n < 1 or n % 1 ~= 0 then
  return redis.error_reply("BADARG got " .. #KEYS .. " keys and " .. #ARGV ..
    " args, want 4 keys and 3n+1 args with n >= 1")
end

local expireAt = ARGV[1]
if #expireAt > 16 or not match(expireAt, "^[1-9]%d*$") or tonumber(expireAt) > 9007199254740991 then
  return redis.error_reply("BADARG expiry: want decimal unix seconds 1..2^53-1")
end
local fields = {}
for i = 1, n do
  local key = ARGV[3 * i - 1]
  if #key < 1 or #key > 4096 then
    return redis.error_reply("BADARG idempotency key of item " .. i .. ": want 1..4096 bytes")
  end
  fields[i] = key
  local hash = ARGV[3 * i]
  if #hash > 128 or not match(hash, "^%w+$") then
    return redis.error_reply("BADARG content hash of item " .. i .. ": want 1..128 of [0-9A-Za-z]")
  end
  local id = ARGV[3 * i + 1]
  if #id > 19 or not match(id, "^%d+$") or
      (#id == 19 and id > "9223372036854775807") then
    return redis.error_reply("BADARG message id of item " .. i .. ": want decimal 0..2^63-1")
  end
end

local counter = call("GET", KEYS[1])
if not counter then
  return { VERSION, "NEED_SEED" }
end
if not match(counter, "^%d+$") then
  return redis.error_reply("CORRUPT room counter is not a decimal integer")
end

-- Read and check every existing entry before the first write, so that an error reply never
-- leaves a partly admitted batch behind. HMGET in chunks: unpack() is bounded by the Lua C stack.
local existing = {}
local fresh = 0
local CHUNK = 1000
for from = 1, n, CHUNK do
  local to = math.min(from + CHUNK - 1, n)
  local current = call("HMGET", KEYS[2], unpack(fields, from, to))
  local previous = call("HMGET", KEYS[3], unpack(fields, from, to))
  for j = 1, to - from + 1 do
    local key = fields[from + j - 1]
    if existing[key] == nil then
      local value = current[j] or previous[j]
      if value then
        local seq, id, hash = match(value, "^(%d+)|(%d+)|(%w+)$")
        if not seq then
          return redis.error_reply("CORRUPT entry of item " .. (from + j - 1) ..
            " is not seq|messageId|contentHash")
        end
        existing[key] = { seq, id, hash }
      else
        existing[key] = false
        fresh = fresh + 1
      end
    end
  end
end

local nextSeq = 0
if fresh > 0 then
  nextSeq = call("INCRBY", KEYS[1], fresh) - fresh + 1
end
local firstSeq = nextSeq
local statuses = {}
local seqs = {}
local stored = {}
local out = { VERSION, "OK", "", firstSeq }
local o = 4
for i = 1, n do
  local key = fields[i]
  local hash = ARGV[3 * i]
  local entry = existing[key]
  if entry == false then
    -- tostring prints integers below 1e14 exactly and is much cheaper than format.
    local seq = nextSeq < 1e14 and tostring(nextSeq) or format("%d", nextSeq)
    nextSeq = nextSeq + 1
    stored[#stored + 1] = key
    stored[#stored + 1] = seq .. "|" .. ARGV[3 * i + 1] .. "|" .. hash
    existing[key] = i
    seqs[i] = seq
    statuses[i] = "N"
  else
    local seq, id, original
    if type(entry) == "number" then
      -- admitted earlier in this call, as item number entry
      seq, id, original = seqs[entry], ARGV[3 * entry + 1], ARGV[3 * entry]
    else
      seq, id, original = entry[1], entry[2], entry[3]
    end
    if original == hash then
      statuses[i] = "D"
    else
      statuses[i] = "C"
    end
    out[o + 1] = seq
    out[o + 2] = id
    o = o + 2
  end
end
for from = 1, #stored, 2 * CHUNK do
  call("HSET", KEYS[2], unpack(stored, from, math.min(from + 2 * CHUNK - 1, #stored)))
end
if #stored > 0 then
  call("EXPIREAT", KEYS[2], expireAt)
end
call("UNLINK", KEYS[4])
out[3] = table.concat(statuses)
return out
