#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh - run the kernel's checkpatch.pl --strict on the sources
# of the module and of the portable model and on the uapi headers;
# prints every finding and exits 1 if there is any (errors, warnings and
# checks alike).
#
# checkpatch.pl comes from Debian's linux-source-6.1 package, unpacked once
# per version of the package into $GT_STORE/linux-source/ by
# gt_linux_source (lib.sh), the same tree the VM harness takes the
# kselftest headers from.
#
# No check is excluded: checkpatch.pl -f on whole files does not raise the
# patch-only ones (FILE_PATH_CHANGES, commit message checks), and every
# file carries an SPDX line.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

gt_linux_source
[ -f "$LSRC/scripts/checkpatch.pl" ] || gt_die "no $LSRC/scripts/checkpatch.pl"

cd "$GT_ROOT"
failed=0
# model/env/user.h is the model's user-space environment: C11 for the
# command, not kernel code.
for f in kmod/*.c kmod/*.h model/*.c model/*.h model/env/kernel.h \
	include/uapi/linux/*.h; do
	perl "$LSRC/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types -f "$f" || failed=1
done
if [ "$failed" -ne 0 ]; then
	echo "checkpatch: findings above" >&2
	exit 1
fi
echo "checkpatch: clean"
