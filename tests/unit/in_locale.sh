#!/bin/sh
# in_locale.sh CMD [ARGS...]: run CMD in a decimal-comma locale
# (de_DE.UTF-8, compiled into a temporary folder by mklocale.sh).
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$(dirname "$0")/mklocale.sh" "$dir"
LOCPATH=$dir LC_ALL=de_DE.UTF-8 "$@"
