# SPDX-License-Identifier: GPL-2.0
#
# guest-lib.sh - what every /init of our guests does first and last: the
# tests' (selftests/vm/guest-init) and the bench's (bench/guest-init).
# gt_initramfs_base (lib.sh) puts it in the initramfs as /lib/guest-lib.sh;
# busybox sh sources it before anything else.

# gt_guest_boot [TMPFS_SIZE]: busybox's applets, /dev, the console as
# stdin, stdout and stderr, /proc, /sys, a tmpfs on /tmp (of TMPFS_SIZE,
# busybox's mount -o size=, or its default, half of the memory), /out,
# and the bus drivers the kernel did not build in, in dependency order
# (/lib/modules/load-order).
gt_guest_boot() {
	export PATH=/bin:/sbin
	/bin/busybox --install -s /bin
	mount -t devtmpfs devtmpfs /dev
	# The initramfs has no /dev/console of its own: take devtmpfs's.
	exec </dev/console >/dev/console 2>&1
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t tmpfs ${1:+-o size=$1} tmpfs /tmp
	mkdir -p /out
	while read -r m; do
		insmod "/lib/modules/$m" || echo "# cannot load $m"
	done < /lib/modules/load-order
}

# gt_guest_verdict N: ends the guest with verdict N (0: all went well).
# Sends /out (traces, results, dmesg) to the host over the virtio-serial
# port named "gtout", then N to QEMU's isa-debug-exit port (0xf4) on
# x86-64; arm64's virt machine has no such port, and the host reads the
# verdict from /out/verdict, which it received (gt_qemu).
gt_guest_verdict() {
	dmesg > /out/dmesg.txt
	echo "$1" > /out/verdict
	port=
	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = gtout ] && port=/dev/${p##*/}
	done
	if [ -n "$port" ]; then
		tar -cf "$port" -C /out .
	else
		echo "# no virtio-serial port named gtout: /out stays here"
	fi
	sync
	# shellcheck disable=SC2059
	[ -e /dev/port ] &&
		printf "\\$(printf '%03o' "$1")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	poweroff -f
}
