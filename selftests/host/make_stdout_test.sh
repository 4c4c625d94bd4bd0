#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make_stdout_test.sh - what the VM harness captures of make's output is
# make's answer alone, even under an outer make.
#
# `make check` runs the harness under make: a sub-make then inherits
# MAKEFLAGS and MAKELEVEL and prints "make[N]: Entering directory" on
# stdout, which a plain $(make -s ...) captures with the answer (the
# debug kernel's release became three lines, and a fresh machine's CI
# failed).  A stand-in for the kernel's Makefile, which recurses into its
# O= directory the same way, is asked its release under a parent make,
# once as the harness asks (gt_make_stdout) and once plainly, to show
# that the parent make does what the harness must survive.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/obj"

# Like the kernel's: with an output directory, a second make there.
cat > "$tmp/src/Makefile" <<'MK'
ifneq ($(OUTDIR),)
kernelrelease:
	@$(MAKE) -C $(OUTDIR) -f $(CURDIR)/Makefile kernelrelease OUTDIR=
else
kernelrelease:
	@echo 6.12.99-gt-test
endif
MK

# The parent: `make check` calls `$(MAKE) check-vm`, which runs a script.
cat > "$tmp/Makefile" <<MK
outer:
	@\$(MAKE) inner
inner:
	@bash -c '. $here/../vm/lib.sh && gt_make_stdout -C $tmp/src OUTDIR=$tmp/obj kernelrelease' > $tmp/harness.out
	@make -s -C $tmp/src OUTDIR=$tmp/obj kernelrelease > $tmp/plain.out
MK
# As `make check` is started: from a shell, without -s.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$tmp" outer > /dev/null

n=0 fail=0
ok() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi
}
ok "a plain make under a parent make prints more than its answer ($(wc -l < "$tmp/plain.out") lines)" \
	'[ "$(wc -l < "$tmp/plain.out")" -gt 1 ]'
ok "gt_make_stdout under a parent make prints the release alone: '$(tr '\n' '|' < "$tmp/harness.out")'" \
	'[ "$(cat "$tmp/harness.out")" = 6.12.99-gt-test ]'
echo "1..$n"
exit $fail
