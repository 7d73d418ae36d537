# fox-avatar: the single entry point.
#   make test    every layer (what CI runs; tests/README.md), in two lanes (tests/lanes.sh)
#   make bench   the benchmark (docs/bench.md); make bench-report renders docs/bench.md again from docs/bench.json
# Each test layer is also runnable alone and installs what it needs.
SHELL := /bin/bash
JAR   := app/target/avatar.jar
MVN   := mvn -B -q

.PHONY: test prefetch test-docs test-app test-nginx test-monitoring test-compose test-swarm test-ansible \
        test-ansible-specs test-molecule test-release test-journeys bench bench-smoke bench-report \
        build run images identities people release clean dashboard

# The jar first (test-app), then the release's image builds start in the background on it (tools/prefetch.sh),
# then two lanes: the Molecule runs and then the Swarm in the background, the other layers here; last, every
# journey page's first block must have run as written in one of them (test-journeys).
test: prefetch test-app identities
	tests/lib/docblocks.py clear
	tools/prefetch.sh release
	$(MAKE) --no-print-directory test-docs
	tests/lanes.sh test-nginx test-monitoring test-compose test-ansible-specs test-release -- test-molecule test-swarm
	$(MAKE) --no-print-directory test-journeys

# Starts what later layers need in the background (the venv, docker compose v2, the systemd host images,
# Pebble, the arm64 base image) while the first layers run.
prefetch:
	tools/prefetch.sh

# The first block of README.md and of every journey page it links ran as written, and has not changed
# since (tests/lib/docblocks.py: the layers run the blocks and record them under .cache/docblocks).
test-journeys:
	tests/lib/docblocks.py check

build: $(JAR)

$(JAR): pom.xml app/pom.xml $(shell find app/src/main -type f 2>/dev/null)
	$(MVN) -DskipTests package

# The docs against the repository: links, named paths, targets and settings, word budgets.
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
# (tests/swarm/run.sh). Pushes the compose images (built, or found in Docker's cache after test-compose).
test-swarm:
	tests/swarm/run.sh

# specs.sh (no host: argument specs, ansible-lint), then the Molecule scenarios two at a time
# (tests/ansible/molecule.sh). make test runs the two halves in different lanes.
test-ansible: test-ansible-specs test-molecule

# docs/releases.md as written: make release into a real registry, install and upgrade with compose,
# the arm64 images under qemu (tests/release/run.sh).
test-release:
	tests/release/run.sh

test-ansible-specs: build
	tests/ansible/specs.sh

test-molecule: build
	tests/ansible/molecule.sh

bench: build
	bench/run.sh

# The benchmark's quick path: every candidate starts and answers, the report renders (into a temp dir).
bench-smoke: build
	BENCH_SMOKE=1 bench/run.sh

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

# make identities   the fox set's 1,680 keyed identities into images/i/ (images/identities.py): drawn once per
#                   machine and version (a few minutes, kept in ~/.cache/fox-avatar); the Nginx image
#                   and the playbook take them from there
identities:
	FOX_VENV_DIR=.venv-images FOX_VENV_REQUIREMENTS=images/requirements.txt; \
	  source tools/venv.sh && python3 images/identities.py images

# make people LIST=FILE [IMAGES=DIR]   people.tsv: the picture of each person listed in FILE, an address
#     or hash a line, in the set that is served: IMAGES, else the AVATAR_IMAGES_DIR of .env, else
#     images/ (imageset/people.py; docs/own-pictures.md). LIST and IMAGES reach it as typed.
people: export PEOPLE_LIST := $(value LIST)
people: export PEOPLE_IMAGES := $(value IMAGES)
people:
	@[ -n "$$PEOPLE_LIST" ] || { echo "people: LIST is empty: make people LIST=FILE, the file listing your team (docs/own-pictures.md)" >&2; exit 2; }
	python3 -m imageset people "$$PEOPLE_LIST" $(if $(strip $(value IMAGES)),--images "$$PEOPLE_IMAGES",--env .env) \
	    > people.tsv.tmp || { rm -f people.tsv.tmp; exit 1; }
	mv people.tsv.tmp people.tsv

# make dashboard    monitoring/grafana/fox-avatar.json written again from monitoring/grafana/dashboard.py
#                   (Grafana's SDK, pinned in monitoring/grafana/requirements.txt, in its own venv)
dashboard:
	FOX_VENV_DIR=.venv-dashboard FOX_VENV_REQUIREMENTS=monitoring/grafana/requirements.txt; \
	  source tools/venv.sh && python3 monitoring/grafana/dashboard.py --write

# make release VERSION=X.Y.Z REGISTRY=HOST[:PORT] (docs/releases.md, tools/release.sh)
release:
	tools/release.sh

clean:
	$(MVN) clean
