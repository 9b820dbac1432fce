-- admit: atomic dedupe by idempotency key and next per-room sequence number
-- (docs/architecture.md §5, check 2; contract: docs/lua-scripts.md).
-- version: 1
--
-- KEYS[1]          room counter            {r:<room>}:seq
-- KEYS[1+i]        item i's dedupe entry   {r:<room>}:k:<idempotencyKey>   (i = 1..n, n >= 1)
-- ARGV[1]          TTL of new entries in seconds, decimal 1..2147483647
-- ARGV[2i]         item i's content hash, 1..128 characters [0-9A-Za-z]
-- ARGV[2i+1]       item i's candidate message id, decimal 0..9223372036854775807
--
-- Entry value: "<seq>|<messageId>|<contentHash>".
-- Returns {1, "NEED_SEED"} when the room counter is missing; nothing is written.
-- Otherwise {1, "OK", statuses, firstSeq, seq_a, messageId_a, seq_b, messageId_b, ...}:
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
local VERSION = 1
local call, match, format = redis.call, string.match, string.format

local n = #KEYS - 1
if n < 1 or #ARGV ~= 2 * n + 1 then
  return redis.error_reply("BADARG got " .. #KEYS .. " keys and " .. #ARGV ..
    " args, want n+1 keys and 2n+1 args with n >= 1")
end

local ttl = ARGV[1]
if #ttl > 10 or not string.match(ttl, "^[1-9]%d*$") or tonumber(ttl) > 2147483647 then
  return redis.error_reply("BADARG ttl: want decimal seconds 1..2147483647")
end
for i = 1, n do
  local hash = ARGV[2 * i]
  if #hash > 128 or not match(hash, "^%w+$") then
    return redis.error_reply("BADARG content hash of item " .. i .. ": want 1..128 of [0-9A-Za-z]")
  end
  local id = ARGV[2 * i + 1]
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

-- Read and check every existing entry before the first write, so that an error
-- reply never leaves a partly admitted batch behind. MGET in chunks: unpack() is
-- bounded by the Lua C stack.
local existing = {}
local fresh = 0
local CHUNK = 1000
for from = 2, n + 1, CHUNK do
  local to = math.min(from + CHUNK - 1, n + 1)
  local values = call("MGET", unpack(KEYS, from, to))
  for j = 1, #values do
    local key = KEYS[from + j - 1]
    local value = values[j]
    if existing[key] == nil then
      if value then
        local seq, id, hash = match(value, "^(%d+)|(%d+)|(%w+)$")
        if not seq then
          return redis.error_reply("CORRUPT entry of item " .. (from + j - 2) ..
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
local out = { VERSION, "OK", "", firstSeq }
local o = 4
for i = 1, n do
  local key = KEYS[i + 1]
  local hash = ARGV[2 * i]
  local entry = existing[key]
  if entry == false then
    -- tostring prints integers below 1e14 exactly and is much cheaper than format.
    local seq = nextSeq < 1e14 and tostring(nextSeq) or format("%d", nextSeq)
    nextSeq = nextSeq + 1
    call("SET", key, seq .. "|" .. ARGV[2 * i + 1] .. "|" .. hash, "EX", ttl)
    existing[key] = i
    seqs[i] = seq
    statuses[i] = "N"
  else
    local seq, id, original
    if type(entry) == "number" then
      -- admitted earlier in this call, as item number entry
      seq, id, original = seqs[entry], ARGV[2 * entry + 1], ARGV[2 * entry]
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
out[3] = table.concat(statuses)
return out
