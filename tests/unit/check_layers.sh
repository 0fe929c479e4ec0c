#!/usr/bin/env bash
# check_layers.sh SRCDIR: dependencies point one way (STYLE.md). Only
# src/store includes libpq, only src/tui curses, only src/config libconfig;
# src/engine and include/ include none of them and never print or exit.
set -u
cd "$1"
. tests/cli/tap.sh
only_in() { # NAME REGEX DIR
	local bad
	bad=$(grep -rlE "#include *[<\"]($2)" src include 2>/dev/null | grep -v "^$3/" | tr '\n' ' ')
	ok_eq "$1 included only in $3" "$bad" ""
}
only_in libpq 'libpq-fe\.h|libpq/' src/store
only_in curses 'n?cursesw?\.h|ncursesw/' src/tui
only_in libconfig 'libconfig\.h' src/config
bad=$(grep -rlE '\b(printf|fprintf|puts|putchar|exit|abort|getenv) *\(' src/engine include | tr '\n' ' ')
ok_eq "engine and public headers never print, exit or read the environment" "$bad" ""
bad=$(grep -rlE '#include *"(store|config|cli|tui)' src/engine include | tr '\n' ' ')
ok_eq "engine includes nothing from the layers above it" "$bad" ""
done_testing
