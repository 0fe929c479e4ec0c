#!/bin/sh
# mklocale.sh DIR: compile the de_DE.UTF-8 locale (a decimal comma: "0,5")
# into DIR, for LOCPATH=DIR LC_ALL=de_DE.UTF-8. Its sources come with
# Debian's `locales` package (./dev installs it). Exits non-zero, saying
# why, when it cannot.
set -eu
dir=$1
# -c: keep the output despite localedef's warnings about the source files
localedef -c -i de_DE -f UTF-8 "$dir/de_DE.UTF-8" >/dev/null 2>&1 || true
if [ ! -f "$dir/de_DE.UTF-8/LC_NUMERIC" ]; then
	echo "mklocale.sh: cannot compile de_DE.UTF-8 with localedef (install Debian's locales package)" >&2
	exit 1
fi
