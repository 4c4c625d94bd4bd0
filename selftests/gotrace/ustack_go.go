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

// sleep1ms blocks the thread in nanosleep(2) for 1 ms.  Not
// time.Sleep: on a slow guest its timer may have fired by the time the
// thread would wait in futex(2), which then returns at once and blocks
// nothing.
func sleep1ms() {
	ts := syscall.Timespec{Nsec: 1000000}

	syscall.Nanosleep(&ts, nil)
}

// readLoop reads fd rounds times.  With pause, each read comes between
// two sleeps: Go 1.23's syscall profile counts a syscall under the stack
// of the first syscall since the goroutine's last other transition
// carrying a stack, and only once a later one ends it (a syscall's end
// carries none); a sleep is such a transition, a blocked syscall never
// is.
//
//go:noinline
func readLoop(fd, rounds int, pause bool) {
	buf := make([]byte, 8)

	for i := 0; i < rounds; i++ {
		if pause {
			sleep1ms()
		}
		started.Add(1)
		if _, err := syscall.Read(fd, buf); err != nil {
			os.Exit(1)
		}
	}
	if pause {
		sleep1ms()
	}
}

// waitBlocked waits until thread tid has begun read i+1 and is in
// read(2), at most 10 s.
func waitBlocked(tid, i int) {
	path := "/proc/self/task/" + strconv.Itoa(tid) + "/syscall"
	read := strconv.Itoa(syscall.SYS_READ)

	for tries := 0; tries < 10000; tries++ {
		if started.Load() > int32(i) {
			b, err := os.ReadFile(path)
			if err != nil {
				return
			}
			if f := strings.Fields(string(b)); len(f) > 0 && f[0] == read {
				return
			}
		}
		time.Sleep(time.Millisecond)
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
	runtime.LockOSThread()
	setName("gt_ug_" + mode)
	tid := syscall.Gettid()

	var rfd, wfd int
	if mode == "pipe" {
		var p [2]int

		if syscall.Pipe(p[:]) != nil {
			os.Exit(1)
		}
		rfd, wfd = p[0], p[1]
	} else {
		fd, _, e := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, 0, 0)
		if e != 0 {
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
			waitBlocked(tid, i)
			time.Sleep(20 * time.Millisecond)
			if _, err := syscall.Write(wfd, one); err != nil {
				os.Exit(1)
			}
		}
	}()
	readLoop(rfd, rounds, mode == "evfd")
	os.Exit(0)
}
