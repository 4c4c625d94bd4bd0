// SPDX-License-Identifier: GPL-2.0

// burn_go - the Go ground truth of the CPU-sample tests: one goroutine
// spins for SECONDS, in main.hot for three quarters of its time and in
// main.warm for the rest (the same instructions per iteration, three
// times the iterations in main.hot; the gc compiler folds no functions),
// then prints the iterations, its thread's CPU time and the CPU time it
// spent in each function, in ns (burn.c says why the tests hold the
// samples to these measured shares).  Built with
// inlining off, so that both stay frames.
//
// The goroutine is locked to the main thread, whose id (the process's)
// it prints with that thread's CPU time: the test takes that thread's
// samples, not those of the runtime's other threads (sysmon).  No
// asynchronous preemption: with one goroutine it preempts nothing, and
// under emulation each of its signals, every 10 ms, costs a good part of
// a millisecond of the thread's time outside main.hot and main.warm:
// the test runs it with GODEBUG=asyncpreemptoff=1.  (Not by running
// itself again with it: an exec from a thread other than the main one
// takes the main thread's id and start time, and gotrace then takes the
// thread for a task it has not seen, which --children leaves out.)
//
// usage: burn_go SECONDS
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

const round = 1000000

var sink uint64

func hot(n uint64) {
	v := sink
	for i := uint64(0); i < n; i++ {
		v = v*31 + i
	}
	sink = v
}

func warm(n uint64) {
	v := sink
	for i := uint64(0); i < n; i++ {
		v = v*31 + i
	}
	sink = v
}

func main() {
	secs, err := strconv.ParseFloat(os.Args[len(os.Args)-1], 64)
	if len(os.Args) != 2 || err != nil || secs <= 0 {
		fmt.Fprintln(os.Stderr, "usage: burn_go SECONDS")
		os.Exit(2)
	}
	// One thread runs Go code: the samples of the spinning goroutine
	// are the only busy ones of the process.
	runtime.GOMAXPROCS(1)
	runtime.LockOSThread()
	// The CPU time in each function, as burn.c measures it.
	var inHot, inWarm time.Duration
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	rounds := uint64(0)
	t0 := threadCPU()
	for {
		hot(3 * round)
		t1 := threadCPU()
		warm(round)
		t2 := threadCPU()
		inHot += t1 - t0
		inWarm += t2 - t1
		t0 = t2
		rounds++
		if !time.Now().Before(end) {
			break
		}
	}
	cpu := threadCPU()
	fmt.Printf("main.hot %d main.warm %d tid %d cpu_ns %d in_a_ns %d in_b_ns %d all_ns %d\n",
		3*round*rounds, round*rounds, syscall.Gettid(), cpu.Nanoseconds(),
		inHot.Nanoseconds(), inWarm.Nanoseconds(), cpu.Nanoseconds())
}

// threadCPU is the CPU time of this thread, to the nanosecond
// (CLOCK_THREAD_CPUTIME_ID, 3: it counts the running slice too, where
// getrusage's thread time moves a tick at a time).
func threadCPU() time.Duration {
	var ts syscall.Timespec
	_, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 3,
		uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		fmt.Fprintln(os.Stderr, "burn_go: clock_gettime:", errno)
		os.Exit(1)
	}
	return time.Duration(ts.Nano())
}
