#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build-deb.sh OUT: build the Debian packages (debian/) into OUT.
#
# dpkg-buildpackage writes its results to the parent of the source
# tree, so the tree is copied to OUT/src/gotrace-VERSION first (the
# files git knows, committed or not, and new ones it does not ignore)
# and the packages land in OUT/src, then are moved to OUT.  Lintian
# checks them when it is installed (its output is OUT/lintian.txt), then
# selftests/pkg/deb_test.sh what they hold.
set -eu

out=$1
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$top/VERSION")
src=$out/src/gotrace-$version

rm -rf "$out/src"
mkdir -p "$src"
(cd "$top" && git ls-files -co --exclude-standard -z |
	xargs -0 tar cf - --) | tar xf - -C "$src"
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed, see $out/build.log" >&2
	exit 1
}
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out"/
rm -rf "$out/src"
for d in "$out"/*.deb; do
	echo "$d"
done
if command -v lintian >/dev/null; then
	lintian --info --display-info "$out"/*.changes >"$out/lintian.txt" 2>&1 ||
		{ cat "$out/lintian.txt" >&2; exit 1; }
	cat "$out/lintian.txt"
fi
"$top/selftests/pkg/deb_test.sh" "$out"
