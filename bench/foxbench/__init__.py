"""fox-avatar's benchmark, started by bench/run.sh through bench/bench.py. Standard library only,
plus imageset/ (the image set's owner) and tools/loopback.py (the loopback stack). One module per concern:

  settings    paths, the mode and the knobs from the environment
  processes   starting, pinning and stopping server processes; what /proc says about them
  machine     the description of the machine and its tools
  load        the load tools (wrk, h2load, ab) and the targets they aim at
  workspace   what a run's candidates share: the images, a temp dir, the throw-away certificate
  candidates  the servers compared, one class each, and their list
  trixie      the candidate: the full stack on Debian 13 (a container), loaded by oha
  avatar      the avatar URL: the answer it must get, the bytes to show a 64 px avatar (full stack)
  benchmark   the default mode: every candidate, throughput rounds, memory, start-up
  tune        TUNE=1: JVM flag sets and Undertow settings for the sidecar alone
  soak        SOAK=1: millions of requests through the full stack, memory sampled
  jdks        the JDK comparison (17, 21, 25; CDS, AppCDS, the AOT cache)
  identities  the keyed identities: their drawing's time, their files' bytes
  rows        which row of the raw results is which (candidate, protocol, request)
  sections    what the report says: docs/bench.md's sections, the README table
  charts      the charts (gnuplot) of the results and the soak
  report      the raw-results file, and the sections rendered from it into docs/bench.md and the README
"""
