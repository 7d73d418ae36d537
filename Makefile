# fox-avatar: the single entry point.
#   make test    every layer, in order (what CI runs)
#   make bench   the benchmark (see bench/)
# Each test layer is also runnable alone and installs what it needs.
SHELL := /bin/bash
JAR   := app/target/avatar.jar
MVN   := mvn -B -q

.PHONY: test test-app test-nginx test-compose test-ansible bench bench-smoke \
        build run images clean

test: test-app test-nginx test-compose test-ansible bench-smoke

build: $(JAR)

$(JAR): pom.xml app/pom.xml images/names.regex $(shell find app/src/main -type f 2>/dev/null)
	$(MVN) -DskipTests package

test-app:
	mvn -B verify

run: build
	java @app/jvm.options -jar $(JAR) --images images

test-nginx: build
	tests/nginx/run.sh

test-compose:
	tests/compose/run.sh

test-ansible: build
	tests/ansible/run.sh

bench: build
	bench/run.sh

bench-smoke: build
	BENCH_SMOKE=1 bench/run.sh

images:
	images/draw.sh

clean:
	$(MVN) clean
