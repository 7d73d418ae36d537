-- wrk script of the benchmark: prints one JSON line of results in done().
-- `wrk ... -s wrk-report.lua URL -- count STATUS` also counts every response whose status is not STATUS
-- (a Lua call per response costs the load generator about a third of its rate, so the timed runs leave it
-- off; they still count statuses > 399 and socket errors, and a separate counting run checks every target).
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  not302 = 0
  if args[1] == "count" then
    local expected = tonumber(args[2])
    response = function(status, headers, body)
      if status ~= expected then
        not302 = not302 + 1
      end
    end
  end
end

function done(summary, latency, requests)
  local n = 0
  for _, t in ipairs(threads) do
    n = n + t:get("not302")
  end
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"not302":%d,"connect":%d,"read":%d,"write":%d,' ..
    '"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, n, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
