-- seed: raise room counters of one bucket to floors taken from the database, never lower them
-- (docs/architecture.md §5: a lost counter is re-seeded before any new number).
-- version: 2
--
-- KEYS[1]      the bucket's room counters, field <room>   {b:<tag>}:seq
-- ARGV[1]      the first room's name as escaped for keys, 1..2304 bytes of [A-Za-z0-9_.%-]
-- ARGV[2]      its floor: the highest sequence number the database knows, decimal
--              0..9007199254740991
-- ARGV[2i-1], ARGV[2i]   the same for room i (i = 2..n, n <= 1000)
--
-- Returns {2, changed}: how many of the n counters were missing or lower and are now their floor
-- (the others already were at or above it and are unchanged).
-- Errors (nothing written): "BADARG <what>", "CORRUPT <what>".
local VERSION = 2
local match = string.match

if #KEYS ~= 1 or #ARGV < 2 or #ARGV % 2 ~= 0 or #ARGV > 2000 then
  return redis.error_reply("BADARG got " .. #KEYS .. " keys and " .. #ARGV ..
    " args, want 1 key and 2n args with n in 1..1000")
end
local names = {}
for i = 1, #ARGV, 2 do
  local name, floor = ARGV[i], ARGV[i + 1]
  if #name < 1 or #name > 2304 or not match(name, "^[%w_.%%-]+$") then
    return redis.error_reply("BADARG name of room " .. (i + 1) / 2 .. ": want 1..2304 of [A-Za-z0-9_.%-]")
  end
  if #floor > 16 or not match(floor, "^%d+$") or tonumber(floor) > 9007199254740991 then
    return redis.error_reply("BADARG floor of room " .. (i + 1) / 2 .. ": want decimal 0..2^53-1")
  end
  names[#names + 1] = name
end

local current = redis.call("HMGET", KEYS[1], unpack(names))
local raised = {}
for i = 1, #names do
  local value = current[i]
  if value and not match(value, "^%d+$") then
    return redis.error_reply("CORRUPT counter of room " .. i .. " is not a decimal integer")
  end
  local floor = tonumber(ARGV[2 * i])
  if not value or tonumber(value) < floor then
    raised[#raised + 1] = names[i]
    raised[#raised + 1] = string.format("%d", floor)
  end
end
if #raised > 0 then
  redis.call("HSET", KEYS[1], unpack(raised))
end
return { VERSION, #raised / 2 }
