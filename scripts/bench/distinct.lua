-- wrk script for scripts/bench/run-wrk.ts: each request asks for the next path of a file (one per line),
-- starting at a given line, with the given headers; at the end one line of JSON with what wrk measured.
--
--   wrk -t1 -c32 -d8s -s distinct.lua http://127.0.0.1:PORT -- PATHS_FILE START_LINE ["name: value" ...]
local paths = {}
local formatted = {}
local count = 0
local at = 0
local headers = {}

function init(args)
  for line in io.lines(args[1]) do
    count = count + 1
    paths[count] = line
  end
  if count == 0 then error("no paths in " .. args[1]) end
  at = tonumber(args[2] or "0") % count
  for i = 3, #args do
    local name, value = args[i]:match("^([^:]+):%s*(.*)$")
    if name then headers[name] = value end
  end
  -- Every request is formatted here, once: formatting one per request took a good share of wrk's CPU, which
  -- on two cores is taken from the server it measures.
  for i = 1, count do formatted[i] = wrk.format("GET", paths[i], headers) end
end

function request()
  at = at + 1
  if at > count then at = 1 end
  return formatted[at]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"mean_us":%.1f,"max_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max))
end
