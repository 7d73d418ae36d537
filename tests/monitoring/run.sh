#!/usr/bin/env bash
# make test-monitoring: the monitoring files (monitoring/) checked by the tools that read them, and
# the edge's metrics on loopback: the real jar behind a real Nginx with the stub_status listener and
# the fallback feed, Debian 12's mtail, nginx-exporter and blackbox_exporter, and Debian 12's Prometheus
# scraping them all with monitoring/prometheus/prometheus.yml (tests/monitoring/).
# Installs what is missing (Debian packages, the pinned venv); builds nothing (make builds the jar).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/apt.sh
# prometheus: promtool (check rules, test rules) and the server; it, the exporters and mtail run as the
# tests' children.
apt_need nginx openssl prometheus mtail prometheus-nginx-exporter prometheus-blackbox-exporter
source tools/venv.sh

[ -f app/target/avatar.jar ] || { echo "test-monitoring: app/target/avatar.jar missing (run: make build)" >&2; exit 2; }

exec python -m pytest -p no:cacheprovider -q -rfEs tests/monitoring "$@"
