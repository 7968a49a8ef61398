#!/bin/sh
# install.sh installs what web's browser test (TestPlayInBrowser) needs on
# a Debian machine: Node.js 20 or later, Debian's chromium and the pinned
# playwright-core. It does nothing that is already done.
set -eu
cd "$(dirname "$0")"

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
missing=
command -v node >/dev/null 2>&1 || missing="$missing nodejs npm"
[ -x /usr/bin/chromium ] || missing="$missing chromium"
if [ -n "$missing" ]; then
	$sudo apt-get update -qq
	# shellcheck disable=SC2086 # one word per package
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

# playwright-core 1.65 needs Node.js 20 or later.
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
	echo "install.sh: Node.js $(node --version) is too old for playwright-core; need 20 or later" >&2
	exit 1
fi

npm ls --silent >/dev/null 2>&1 || npm ci --silent --no-audit --no-fund
