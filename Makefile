# fox-avatar: the single entry point.
#   make test    every layer (what CI runs; tests/README.md): the Ansible layer's Molecule runs beside
#                the other layers (tests/lanes.sh)
#   make bench   the benchmark (see bench/); make bench-report renders its report again from docs/bench.json
# Each test layer is also runnable alone and installs what it needs.
SHELL := /bin/bash
JAR   := app/target/avatar.jar
MVN   := mvn -B -q

.PHONY: test prefetch test-docs test-app test-nginx test-monitoring test-compose test-swarm test-ansible \
        test-ansible-specs test-molecule test-release bench bench-smoke bench-gate test-bench bench-report \
        build run images people release clean

# test-app first: its Maven run writes the jar the Molecule runs ship (and needs no venv: prefetch
# installs it meanwhile). Then two lanes (tests/lanes.sh): the Molecule runs and then the release layer
# in the background (on a machine that never built its arm64 images it is the longest layer after them:
# tests/README.md, "Times"), the other layers here, one after the other.
test: prefetch test-app test-docs
	tests/lanes.sh test-nginx test-monitoring test-compose test-swarm test-ansible-specs bench-smoke -- test-molecule test-release

# Starts building docker compose v2 (the compose layer's) in the background while the first layers run.
prefetch:
	tools/prefetch.sh

build: $(JAR)

$(JAR): pom.xml app/pom.xml $(shell find app/src/main -type f 2>/dev/null)
	$(MVN) -DskipTests package

# The docs against the repository: README's length, links, and the paths, targets and settings they name.
test-docs:
	tests/docs/run.sh

test-app:
	mvn -B verify

run: build
	java @app/jvm.options -jar $(JAR) --images images

test-nginx: build
	tests/nginx/run.sh

# The monitoring files through promtool, blackbox_exporter and mtail, then the edge's metrics on
# loopback (stub_status, the fallback counter, the probes, Prometheus scraping them; tests/monitoring/run.sh).
test-monitoring: build
	tests/monitoring/run.sh

test-compose:
	tests/compose/run.sh

# docker-stack.yml on a real three-node swarm (Debian 12's and 13's engines in containers, a registry
# of Debian's docker-registry): the deploy, the spread, updates, a drain and a killed node under load
# (tests/swarm/run.sh). Pushes the compose images test-compose built.
test-swarm:
	tests/swarm/run.sh

# specs.sh (no host: argument specs, generated tables, ansible-lint), then the Molecule scenarios
# side by side (tests/ansible/molecule.sh; ansible/molecule/*). make test runs the two halves in
# different lanes (the Molecule runs are the long one).
test-ansible: test-ansible-specs test-molecule

# make release on a throwaway clone against a real registry (Debian's docker-registry, the Swarm
# layer's image), its refusals, artifacts, CHANGELOG and tag, the multi-architecture lists, then the
# arm64 images running under qemu-user-static (tests/release/run.sh).
test-release:
	tests/release/run.sh

test-ansible-specs: build
	tests/ansible/specs.sh

test-molecule: build
	tests/ansible/molecule.sh

bench: build
	bench/run.sh

# The benchmark's CI check: its report test (tests/bench), then every candidate for a few seconds, then
# issue 36's regression gate (about a minute: the sidecar against the JDK peer, its allocation per request
# and its RSS; bench/foxbench/gate.py).
bench-smoke: build test-bench
	BENCH_SMOKE=1 bench/run.sh
	BENCH_GATE=1 bench/run.sh

# The regression gate alone.
bench-gate: build
	BENCH_GATE=1 bench/run.sh

test-bench:
	tests/bench/run.sh

bench-report:
	bench/run.sh --render

# make images                      draw the fox set and its keyed identities into images/ (images/draw.sh)
# make images SRC=DIR [OUT=DIR] [PAD=1]   a folder of your own pictures -> an image set in OUT
#                                   (default images/; docs/own-pictures.md)
# SRC and OUT reach the script through the environment, exactly as typed: a folder name with a
# newline, quotes, '$' or '`' is a name like any other.
images: export PICTURES_SRC := $(value SRC)
images: export PICTURES_OUT := $(value OUT)
images:
ifeq ($(strip $(value SRC)),)
	images/draw.sh $(OUT)
else
	images/pictures.sh "$$PICTURES_SRC" "$${PICTURES_OUT:-images}" $(if $(filter-out 0,$(PAD)),--pad)
endif

# make people LIST=FILE    people.tsv: the picture of each person listed in FILE, an address or hash a line
#                          (imageset/people.py; docs/own-pictures.md)
people:
	python3 -m imageset people "$(LIST)" > people.tsv.tmp || { rm -f people.tsv.tmp; exit 1; }
	mv people.tsv.tmp people.tsv

# A release: make release VERSION=X.Y.Z REGISTRY=HOST[:PORT] (docs/releasing.md, tools/release.sh): the jar,
# the collection and checksums in dist/X.Y.Z/, both images for linux/amd64 and linux/arm64 pushed as one
# multi-architecture tag each, CHANGELOG.md's section, the commit and the tag vX.Y.Z.
release:
	tools/release.sh

clean:
	$(MVN) clean
