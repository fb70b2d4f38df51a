-- bench/wrk.lua: the one wrk script of bench/run.
--
--   wrk ... -s bench/wrk.lua URL -- PATHS_FILE KEYS_FILE [gzip]
--
-- Each request takes the next path of PATHS_FILE (one per line; each thread
-- starts at its own place) and the next key of KEYS_FILE for its
-- Authorization header; "gzip" adds Accept-Encoding: gzip. done() prints
-- one JSON line, prefixed with "BENCH_JSON ", with the request count,
-- duration, errors and latency percentiles in microseconds.

local threads = {}
local counter = 1

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

local paths, keys = {}, {}
local gzip = false
local i, k = 0, 0

local function lines(file)
  local out = {}
  local f = assert(io.open(file, "r"))
  for line in f:lines() do
    if line ~= "" then table.insert(out, line) end
  end
  f:close()
  return out
end

function init(args)
  paths = lines(args[1])
  if args[2] and args[2] ~= "-" then keys = lines(args[2]) end
  gzip = args[3] == "gzip"
  -- spread the threads over the path list
  i = math.floor((#paths / 2) * (tid or 0)) % #paths
  k = (tid or 0) % math.max(#keys, 1)
end

function request()
  i = i % #paths + 1
  local headers = {}
  if #keys > 0 then
    k = k % #keys + 1
    headers["Authorization"] = "Bearer " .. keys[k]
  end
  if gzip then headers["Accept-Encoding"] = "gzip" end
  return wrk.format("GET", paths[i], headers)
end

function done(summary, latency, requests)
  local e = summary.errors
  local p = {}
  for _, q in ipairs({50, 75, 90, 99, 99.9}) do
    p[#p + 1] = string.format('"p%s":%d', (tostring(q):gsub("%.", "_")), latency:percentile(q))
  end
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"mean":%.1f,"max":%d,"stdev":%.1f,%s}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.max, latency.stdev, table.concat(p, ",")))
end
