#!/usr/bin/env bash
# Installs the X11 headers Ebitengine's desktop build links against
# (Debian), unless they are there.
set -euo pipefail
if [ -e /usr/include/X11/extensions/Xrandr.h ] && [ -e /usr/include/X11/Xcursor/Xcursor.h ] &&
	[ -e /usr/include/X11/extensions/Xinerama.h ] && [ -e /usr/include/X11/extensions/XInput2.h ] &&
	[ -e /usr/include/X11/extensions/xf86vmode.h ] && [ -e /usr/include/GL/gl.h ]; then
	exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
	sudo=sudo
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends libgl1-mesa-dev libxrandr-dev libxcursor-dev \
	libxinerama-dev libxi-dev libxxf86vm-dev >/dev/null
