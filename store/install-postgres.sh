#!/bin/sh
# install-postgres.sh installs what store's PostgreSQL tests need on a
# Debian machine: the postgresql package's server programs
# (/usr/lib/postgresql/N/bin). The tests start their own cluster in a
# temporary folder; no system service is used. It does nothing that is
# already done.
set -eu
if ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
	exit 0
fi
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
