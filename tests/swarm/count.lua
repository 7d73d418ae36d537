-- wrk script of make test-swarm (tests/swarm/swarm.py, Load): a paced load that counts every answer
-- other than a 302. Each connection waits 10 ms between its requests, so the load stays bounded
-- (a few hundred requests a second per node) on a shared machine. Printed at the end, one line:
--   RESULT requests=N non302=N connect=N read=N write=N timeout=N status=N
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  non302 = 0
end

function delay()
  return 10
end

function response(status, headers, body)
  if status ~= 302 then
    non302 = non302 + 1
  end
end

function done(summary, latency, requests)
  local non = 0
  for _, t in ipairs(threads) do
    non = non + t:get("non302")
  end
  local e = summary.errors
  io.write(string.format("RESULT requests=%d non302=%d connect=%d read=%d write=%d timeout=%d status=%d\n",
    summary.requests, non, e.connect, e.read, e.write, e.timeout, e.status))
end
