// SPDX-License-Identifier: GPL-2.0
//
// ustack_go: the Go workload of ustack_test.sh.  Its main goroutine,
// locked to a thread named gt_ug_MODE, calls main.readLoop, which
// calls syscall.Read, which blocks ROUNDS times: on a pipe (mode pipe:
// a block, Go's sync profile) or on an eventfd (mode evfd: a blocking
// syscall, Go's syscall profile).  Another goroutine ends each block
// 20 ms after it began, counted from when the reading thread is in its
// read (/proc's syscall file): a slow guest must not see the data come
// before the read that should wait for it.  The Makefile builds it with inlining off
// (-gcflags=all=-l), so that syscall.Read stays a frame of its own, as
// noinline keeps ustack.c's.
package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// started counts the reads readLoop has begun.
var started atomic.Int32

// setName names the calling thread, as prctl(PR_SET_NAME) does in C.
func setName(name string) {
	b := append([]byte(name), 0)
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_NAME,
		uintptr(unsafe.Pointer(&b[0])), 0)
}

// gateWait blocks the thread in read(2) on the gate pipe until the
// other goroutine writes a byte to it, which it does only once it has
// seen the thread in that read (release): a block that surely
// happens.  A raw syscall, so that the runtime makes no syscall of its
// own between the block and the caller's next call: entering and
// leaving a syscall through syscall.Syscall may read the clock, a
// syscall where the guest's vDSO falls back to one.
func gateWait(gate int) {
	var b [1]byte

	for {
		_, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(gate),
			uintptr(unsafe.Pointer(&b[0])), 1)
		if e != syscall.EINTR {
			return
		}
	}
}

// readLoop reads fd rounds times.  With gate >= 0, each read comes
// right after a block on the gate, and one follows the last: Go 1.23's
// syscall profile gives a syscall's time to the first syscall since
// the goroutine's last other transition carrying a stack (it ends
// nothing at a syscall's end, which carries none), so a read is in it
// under its own stack only as the first syscall after such a
// transition, here the gate's block.
//
//go:noinline
func readLoop(fd, rounds, gate int) {
	buf := make([]byte, 8)

	for i := 0; i < rounds; i++ {
		if gate >= 0 {
			gateWait(gate)
		}
		started.Add(1)
		if _, err := syscall.Read(fd, buf); err != nil {
			os.Exit(1)
		}
	}
	if gate >= 0 {
		gateWait(gate)
	}
}

// waitBlocked waits until thread tid has begun read n (counted from 1;
// 0: no read of fd yet) and is in read(2) on fd, at most 10 s.
func waitBlocked(tid, n, fd int) {
	path := "/proc/self/task/" + strconv.Itoa(tid) + "/syscall"
	read := strconv.Itoa(syscall.SYS_READ)
	arg := "0x" + strconv.FormatInt(int64(fd), 16)

	for tries := 0; tries < 10000; tries++ {
		if started.Load() >= int32(n) {
			b, err := os.ReadFile(path)
			if err != nil {
				return
			}
			f := strings.Fields(string(b))
			if len(f) > 1 && f[0] == read && f[1] == arg {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// release writes data to wfd once thread tid, n reads of the data fd
// begun, has been blocked in read(2) on rfd for delay.
func release(tid, n, rfd, wfd int, data []byte, delay time.Duration) {
	waitBlocked(tid, n, rfd)
	time.Sleep(delay)
	if _, err := syscall.Write(wfd, data); err != nil {
		os.Exit(1)
	}
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "pipe" && os.Args[1] != "evfd") {
		os.Stderr.WriteString("usage: ustack_go pipe|evfd [ROUNDS]\n")
		os.Exit(2)
	}
	mode := os.Args[1]
	rounds := 3
	if len(os.Args) > 2 {
		rounds, _ = strconv.Atoi(os.Args[2])
	}
	// The reading thread blocks on the gate in a raw syscall, keeping
	// its P: the writer needs another, and no stop of the world (a
	// collection) may wait for the blocked thread.
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	debug.SetGCPercent(-1)
	runtime.LockOSThread()
	setName("gt_ug_" + mode)
	tid := syscall.Gettid()

	var rfd, wfd int
	gate := [2]int{-1, -1}
	if mode == "pipe" {
		var p [2]int

		if syscall.Pipe(p[:]) != nil {
			os.Exit(1)
		}
		rfd, wfd = p[0], p[1]
	} else {
		fd, _, e := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, 0, 0)
		if e != 0 || syscall.Pipe(gate[:]) != nil {
			os.Exit(1)
		}
		rfd, wfd = int(fd), int(fd)
	}
	go func() {
		one := []byte{1, 0, 0, 0, 0, 0, 0, 0}

		if mode == "pipe" {
			one = one[:1]
		}
		for i := 0; i < rounds; i++ {
			if gate[0] >= 0 {
				release(tid, i, gate[0], gate[1], []byte{1},
					5*time.Millisecond)
			}
			release(tid, i+1, rfd, wfd, one, 20*time.Millisecond)
		}
		if gate[0] >= 0 {
			release(tid, rounds, gate[0], gate[1], []byte{1},
				5*time.Millisecond)
		}
	}()
	readLoop(rfd, rounds, gate[0])
	os.Exit(0)
}
