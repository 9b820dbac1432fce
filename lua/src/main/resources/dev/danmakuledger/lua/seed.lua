-- seed: raise a room counter to a floor taken from the database, never lower it
-- (docs/architecture.md §5: a lost counter is re-seeded before any new number).
-- version: 1
--
-- KEYS[1]  room counter  {r:<room>}:seq
-- ARGV[1]  floor: the highest sequence number the database knows, decimal 0..9007199254740991
--
-- Returns {1, 1} when the counter was missing or lower and is now the floor,
--         {1, 0} when it already was at or above the floor (unchanged).
-- Errors (nothing written): "BADARG <what>", "CORRUPT <what>".
local VERSION = 1

if #KEYS ~= 1 or #ARGV ~= 1 then
  return redis.error_reply("BADARG got " .. #KEYS .. " keys and " .. #ARGV .. " args, want 1 and 1")
end
local floor = ARGV[1]
if #floor > 16 or not string.match(floor, "^%d+$") or tonumber(floor) > 9007199254740991 then
  return redis.error_reply("BADARG floor: want decimal 0..2^53-1")
end

local current = redis.call("GET", KEYS[1])
if current then
  if not string.match(current, "^%d+$") then
    return redis.error_reply("CORRUPT room counter is not a decimal integer")
  end
  if tonumber(current) >= tonumber(floor) then
    return { VERSION, 0 }
  end
end
redis.call("SET", KEYS[1], string.format("%d", tonumber(floor)))
return { VERSION, 1 }
