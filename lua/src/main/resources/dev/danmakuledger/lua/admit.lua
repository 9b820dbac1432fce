-- admit: atomic dedupe by idempotency key and next per-room sequence number, for the rooms of
-- one bucket (docs/architecture.md §5, check 2; contract: docs/lua-scripts.md).
-- version: 3
--
-- Rooms are spread over a fixed set of buckets (docs/lua-scripts.md, "Keys"). A bucket keeps its
-- rooms' counters in one hash and their entries in one hash per window of TTL seconds, a field
-- per room and idempotency key: a call reads the current and the previous window and writes the
-- current one, so an entry is remembered for between one and two TTLs. A call admits any number
-- of the bucket's rooms in a fixed number of commands, whatever the number of rooms.
--
-- KEYS[1]          the bucket's room counters, field <room>       {b:<tag>}:seq
-- KEYS[2]          entries of the current window w                {b:<tag>}:w:<w>
-- KEYS[3]          entries of window w-1                          {b:<tag>}:w:<w-1>
-- KEYS[4]          entries of window w-2, past their life and unlinked here (freed off the
--                  main thread)                                   {b:<tag>}:w:<w-2>
-- ARGV[1]          when KEYS[2] expires: unix seconds (w + 2) * TTL, decimal 1..2^53-1
-- ARGV[2]          r, the number of rooms, decimal 1..1000
-- then per room, in order:
--                  the room's name as escaped for keys, 1..2304 bytes of [A-Za-z0-9_.%-], each
--                  room at most once a call
--                  k, its number of items, decimal 1..1000 (all rooms' k together at most 1000)
--                  k items of three arguments each: the idempotency key (the entry's field is
--                  "<room>:<key>", 1..4096 bytes), the content hash (1..128 characters
--                  [0-9A-Za-z]) and the candidate message id (decimal 0..9223372036854775807)
--
-- Entry value: "<seq>|<messageId>|<contentHash>".
-- Returns {3, "OK", then per room in call order: statuses, firstSeq, originals}:
--   statuses   "NEED_SEED" when the room's counter is missing (nothing of the room is written;
--              firstSeq is 0 and no originals follow), else k characters, character i for item i:
--     N  NEW        entry was absent; stored with the candidate id and the next seq
--     D  DUPLICATE  entry exists with the same content hash
--     C  CONFLICT   entry exists with another content hash
--   firstSeq   the seq of the room's first NEW item (integer); its j-th NEW item has
--              firstSeq + j - 1 (0 when no item is NEW)
--   originals  for each D or C item in item order, the ORIGINAL seq and message id (decimal
--              strings).
-- A key repeated within one room of a call is a DUPLICATE (or CONFLICT) of its first occurrence.
-- Re-running a call that already ran returns every item as DUPLICATE of itself: same seq, same
-- (own candidate) message id.
-- Errors (nothing written): "BADARG <what>", "CORRUPT <what>".
-- Input reaches Redis only as KEYS/ARGV values; no value is ever evaluated as code.
local VERSION = 3
local call, match, format, unpack = redis.call, string.match, string.format, unpack
local MAX_ITEMS = 1000

if #KEYS ~= 4 or #ARGV < 5 then
  return redis.error_reply("BADARG got " .. #KEYS .. " keys and " .. #ARGV ..
    " args, want 4 keys and 2 + (2 + 3k) args a room")
end

local expireAt = ARGV[1]
if #expireAt > 16 or not match(expireAt, "^[1-9]%d*$") or tonumber(expireAt) > 9007199254740991 then
  return redis.error_reply("BADARG expiry: want decimal unix seconds 1..2^53-1")
end
local rooms = ARGV[2]
if #rooms > 4 or not match(rooms, "^[1-9]%d*$") or tonumber(rooms) > MAX_ITEMS then
  return redis.error_reply("BADARG room count: want decimal 1.." .. MAX_ITEMS)
end
rooms = tonumber(rooms)

-- Parse and check every argument before the first read.
local names, counts, starts = {}, {}, {}
local seen = {}
local total = 0
local at = 3
for r = 1, rooms do
  local name, k = ARGV[at], ARGV[at + 1]
  if not name or #name < 1 or #name > 2304 or not match(name, "^[%w_.%%-]+$") then
    return redis.error_reply("BADARG name of room " .. r .. ": want 1..2304 of [A-Za-z0-9_.%-]")
  end
  if seen[name] then
    return redis.error_reply("BADARG room " .. r .. " repeats an earlier room of the call")
  end
  seen[name] = true
  if not k or #k > 4 or not match(k, "^[1-9]%d*$") then
    return redis.error_reply("BADARG item count of room " .. r .. ": want decimal 1.." .. MAX_ITEMS)
  end
  k = tonumber(k)
  total = total + k
  if total > MAX_ITEMS then
    return redis.error_reply("BADARG items: want at most " .. MAX_ITEMS .. " in all rooms of a call")
  end
  names[r], counts[r], starts[r] = name, k, at + 2
  at = at + 2 + 3 * k
  if at - 1 > #ARGV then
    return redis.error_reply("BADARG room " .. r .. " has fewer arguments than its " .. k .. " items")
  end
  for i = 0, k - 1 do
    local a = starts[r] + 3 * i
    local key = ARGV[a]
    if #key < 1 or #key > 4096 then
      return redis.error_reply("BADARG idempotency key of item " .. (i + 1) .. " of room " .. r ..
        ": want 1..4096 bytes")
    end
    local hash = ARGV[a + 1]
    if #hash > 128 or not match(hash, "^%w+$") then
      return redis.error_reply("BADARG content hash of item " .. (i + 1) .. " of room " .. r ..
        ": want 1..128 of [0-9A-Za-z]")
    end
    local id = ARGV[a + 2]
    if #id > 19 or not match(id, "^%d+$") or (#id == 19 and id > "9223372036854775807") then
      return redis.error_reply("BADARG message id of item " .. (i + 1) .. " of room " .. r ..
        ": want decimal 0..2^63-1")
    end
  end
end
if at - 1 ~= #ARGV then
  return redis.error_reply("BADARG got " .. (#ARGV - at + 1) .. " arguments past the last room")
end

local counters = call("HMGET", KEYS[1], unpack(names))
for r = 1, rooms do
  if counters[r] and not match(counters[r], "^%d+$") then
    return redis.error_reply("CORRUPT counter of room " .. r .. " is not a decimal integer")
  end
end

-- Read and check every existing entry of the seeded rooms before the first write, so that an
-- error reply never leaves a partly admitted call behind. One HMGET a window for all rooms.
local fields, firstField = {}, {}
for r = 1, rooms do
  if counters[r] then
    firstField[r] = #fields + 1
    local prefix = names[r] .. ":"
    for i = 0, counts[r] - 1 do
      fields[#fields + 1] = prefix .. ARGV[starts[r] + 3 * i]
    end
  end
end
-- existing[field]: a stored entry as {seq, id, hash}, or the index in `stored` of the value this
-- call stores for it.
local existing = {}
if #fields > 0 then
  local current = call("HMGET", KEYS[2], unpack(fields))
  local previous = call("HMGET", KEYS[3], unpack(fields))
  for j = 1, #fields do
    local value = current[j] or previous[j]
    if value then
      local seq, id, hash = match(value, "^(%d+)|(%d+)|(%w+)$")
      if not seq then
        return redis.error_reply("CORRUPT entry " .. j .. " of the call is not seq|messageId|contentHash")
      end
      existing[fields[j]] = { seq, id, hash }
    end
  end
end

local out = { VERSION, "OK" }
local stored = {}
local raised = {}
for r = 1, rooms do
  if not counters[r] then
    out[#out + 1] = "NEED_SEED"
    out[#out + 1] = 0
  else
    local counter = tonumber(counters[r])
    local nextSeq = counter + 1
    local statuses = {}
    local originals = {}
    local f = firstField[r]
    for i = 0, counts[r] - 1 do
      local a = starts[r] + 3 * i
      local field = fields[f + i]
      local hash = ARGV[a + 1]
      local entry = existing[field]
      if not entry then
        -- tostring prints integers below 1e14 exactly and is much cheaper than format.
        local seq = nextSeq < 1e14 and tostring(nextSeq) or format("%d", nextSeq)
        nextSeq = nextSeq + 1
        stored[#stored + 1] = field
        stored[#stored + 1] = seq .. "|" .. ARGV[a + 2] .. "|" .. hash
        existing[field] = #stored
        statuses[i + 1] = "N"
      else
        if type(entry) == "number" then
          -- stored earlier in this call
          entry = { match(stored[entry], "^(%d+)|(%d+)|(%w+)$") }
        end
        statuses[i + 1] = entry[3] == hash and "D" or "C"
        originals[#originals + 1] = entry[1]
        originals[#originals + 1] = entry[2]
      end
    end
    out[#out + 1] = table.concat(statuses)
    out[#out + 1] = nextSeq > counter + 1 and counter + 1 or 0
    for _, v in ipairs(originals) do
      out[#out + 1] = v
    end
    if nextSeq > counter + 1 then
      raised[#raised + 1] = names[r]
      raised[#raised + 1] = format("%d", nextSeq - 1)
    end
  end
end
if #stored > 0 then
  call("HSET", KEYS[2], unpack(stored))
  call("EXPIREAT", KEYS[2], expireAt)
  call("HSET", KEYS[1], unpack(raised))
end
call("UNLINK", KEYS[4])
return out
