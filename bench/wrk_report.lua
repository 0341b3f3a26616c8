-- wrk script: GET the paths listed in $WRK_PATHS (one per line) in random order with the
-- headers of $WRK_HEADERS ("Name: value" lines), and print one JSON line of figures.
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
local headers_file = os.getenv("WRK_HEADERS")
if headers_file then
  for line in io.lines(headers_file) do
    local name, value = line:match("^([^:]+):%s*(.*)$")
    if name then wrk.headers[name] = value end
  end
end

-- $WRK_PAUSE_MS: each connection waits that long before each request (a smoke run's light load).
local pause = tonumber(os.getenv("WRK_PAUSE_MS") or "")
if pause then
  function delay() return pause end
end

local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

function init(args)
  math.randomseed(seed * 7919)
end

function request()
  return wrk.format("GET", paths[math.random(#paths)])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "p50_ms": %.3f, "p99_ms": %.3f, "errors": %d, "non_2xx_3xx": %d, "timeouts": %d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.connect + e.read + e.write + e.timeout, e.status, e.timeout))
end
