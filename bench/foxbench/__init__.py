"""fox-avatar's benchmark (bench/bench.py runs it): common (settings, processes, the machine, the workspace),
load (the load tools and targets), candidates (the servers compared), avatar (the bytes to show an avatar),
benchmark (the default mode), report (its section and the summary), limits (the app image under memory
limits), connections (CONNECTIONS=1), soak (SOAK=1)."""
