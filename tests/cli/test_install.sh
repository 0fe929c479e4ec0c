#!/usr/bin/env bash
# test_install.sh SOURCE_ROOT: `meson install` into a prefix of its own
# (a build of the library and the program from SOURCE_ROOT, tests off)
# puts the program, the library with its headers and pkg-config file, the
# man page, the default configuration and the SQL migrations in their
# places; a C program builds against the installed headers through
# pkg-config and runs with the installed library; and the installed
# `crawltop migrate` applies the installed migrations (not the source
# tree's) to a database of a cluster of its own.
set -u
SRC=$(cd "$1" && pwd)
. "$(dirname "$0")/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inst=$tmp/inst
# the test harness points programs at the source tree's migrations; an
# installed program must find its own
unset CRAWLTOP_SQL_DIR CRAWLTOP_DSN
log=$tmp/build.log
# buildtype plain: no optimisation, no debug information (the install
# is what is tested, not the code; -g -O2 took twice the CPU)
if meson setup "$tmp/build" "$SRC" --prefix "$inst" -Dtests=false \
	-Dbench=false -Dbuildtype=plain >"$log" 2>&1 && ninja -C "$tmp/build" >>"$log" 2>&1 &&
	meson install -C "$tmp/build" >>"$log" 2>&1; then
	tap_result 1 "meson setup, build and install into a prefix"
else
	tap_result 0 "meson setup, build and install into a prefix" \
		"$(tail -20 "$log")"
	done_testing
	exit 1
fi

libdir=$(find "$inst" -name 'libcrawltop.so' -printf '%h\n' | head -1)
pcdir=$(find "$inst" -name 'crawltop.pc' -printf '%h\n' | head -1)
ok_eq "program in bin/" "$(test -x "$inst/bin/crawltop" && echo yes)" yes
ok_match "shared library in the library directory" \
	"$(ls "$libdir" 2>/dev/null | tr '\n' ' ')" \
	'libcrawltop\.so libcrawltop\.so\.[0-9]+ libcrawltop\.so\.[0-9.]+'
ok_eq "pkg-config file beside it" "$pcdir" "$libdir/pkgconfig"
# missing_from DIR FILE...: the FILEs that DIR does not hold byte for byte
missing_from() {
	local dir=$1 f out=""
	shift
	for f in "$@"; do
		cmp -s "$f" "$dir/$(basename "$f")" || out="$out $(basename "$f")"
	done
	printf '%s' "$out"
}
ok_eq "every public header in include/crawltop/" \
	"$(missing_from "$inst/include/crawltop" "$SRC"/include/crawltop/*.h)" ""
ok_eq "man page in share/man/man1/" \
	"$(cmp -s "$SRC/doc/crawltop.1" "$inst/share/man/man1/crawltop.1" && echo same)" same
ok_eq "default configuration in etc/crawltop/" \
	"$(cmp -s "$SRC/data/crawltop.conf" "$inst/etc/crawltop/crawltop.conf" && echo same)" same
ok_eq "every migration in share/crawltop/sql/" \
	"$(missing_from "$inst/share/crawltop/sql" "$SRC"/data/sql/*.sql)" ""

# a program of the library's users: the installed headers and library
cat >"$tmp/user.c" <<'EOF'
#include <crawltop/crawltop.h>
#include <stdio.h>
int main(void)
{
	struct ct_settings s;
	ct_settings_default(&s);
	printf("%d\n", ct_settings_check(&s, NULL) == CT_OK);
	return 0;
}
EOF
flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs crawltop 2>&1)
ok_match "pkg-config names the installed headers and library" "$flags" \
	"-I$inst/include.*-L$libdir.*-lcrawltop"
# shellcheck disable=SC2086
if cc -o "$tmp/user" "$tmp/user.c" $flags >"$tmp/cc.log" 2>&1; then
	ok_eq "a program builds against the installed library and runs" \
		"$(LD_LIBRARY_PATH=$libdir "$tmp/user" 2>&1)" 1
else
	tap_result 0 "a program builds against the installed library and runs" \
		"$(cat "$tmp/cc.log")"
fi

# The installed program migrates with the installed files: a migration
# added to them alone (not to the source tree) is applied too.
last=$(ls "$SRC/data/sql" | sed -n 's/^\([0-9]*\)_.*\.sql$/\1/p' | sort -n | tail -1)
next=$(printf '%04d' $((10#$last + 1)))
cat >"$inst/share/crawltop/sql/${next}_install_probe.sql" <<'EOF'
CREATE TABLE crawltop.install_probe (x integer);
EOF
cat >"$tmp/migrate.sh" <<EOF
#!/usr/bin/env bash
export CRAWLTOP_DSN="\$CT_TEST_DSN"
"$inst/bin/crawltop" migrate >"$tmp/migrate.out" 2>&1
echo "rc=\$?" >>"$tmp/migrate.out"
psql "\$CT_TEST_DSN" -XqAt -c "SELECT to_regclass('crawltop.install_probe') IS NOT NULL, max(version) FROM crawltop.schema_version" >>"$tmp/migrate.out" 2>&1
EOF
chmod +x "$tmp/migrate.sh"
"$SRC/tests/store/pg-cluster.sh" run "$tmp/migrate.sh" >"$tmp/cluster.log" 2>&1
out=$(cat "$tmp/migrate.out" 2>/dev/null || cat "$tmp/cluster.log")
ok_match "the installed crawltop migrate succeeds" "$out" 'rc=0'
ok_match "and applies the installed migrations, the added one too" "$out" \
	"^t\\|$((10#$next))\$"
done_testing
