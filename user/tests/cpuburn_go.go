// SPDX-License-Identifier: GPL-2.0
//
// cpuburn_go.go - a Go program whose CPU goes 75% to main.burnA and 25%
// to main.burnB, profiled into its own execution trace
//
//	cpuburn PROFILE TRACE SECONDS
//
// Runs runtime/pprof's CPU profile (100 Hz) and runtime/trace until the
// process has had SECONDS of CPU time, so that Go's runtime writes the
// CPU samples into the trace (tests/pprof_test.sh,
// tests/go123_verdict_test.sh).  The shares are set by work, not by
// time: burnA runs three times the loop burnB runs, the same loop, so
// that a machine busy with other work changes how long the program
// takes and not where its CPU time goes.  So is the length of the run:
// SECONDS of wall time on a loaded machine gave a third of the samples,
// and three times the deviation of the shares below.
//
// The profile's clock ticks every 10 ms of the thread's CPU time (on the
// kernel's tick: 12 and 8 ms apart at 250 Hz).  With short rounds each
// sample falls in burnA by a coin toss of 3 to 1, and 300 samples put
// the share within a few points only by luck (2.5 points of standard
// deviation).  So the rounds are long, burnB's about 20 ms of CPU and
// burnA's 60: a stretch of CPU time holds its share of the samples but
// for the fraction of one at each end.  Rounds of one length would
// lock to the ticks (every round's samples at the same places, 4 or 5
// points off for the whole run), so each round's length is drawn at
// random, from half to one and a half times that: what is left is
// under a point of deviation.
package main

import (
	"math/rand"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"syscall"
	"time"
)

var sink uint64

// loop is burnA's and burnB's work, n rounds of it.
func loop(n int) {
	for i := 0; i < n; i++ {
		sink += uint64(i) * 3
		sink ^= sink >> 7
	}
}

//go:noinline
func burnA(n int) {
	loop(3 * n)
}

//go:noinline
func burnB(n int) {
	loop(n)
}

// cpu is the process's CPU time so far.
func cpu() time.Duration {
	var ru syscall.Rusage

	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rounds is the n of loop(n) that takes about 20 ms of CPU.
func rounds() int {
	n := 1 << 20
	for {
		t := cpu()
		loop(n)
		if d := cpu() - t; d >= 50*time.Millisecond {
			return int(int64(n) * int64(20*time.Millisecond) / int64(d))
		}
		n *= 2
	}
}

func main() {
	if len(os.Args) != 4 {
		os.Stderr.WriteString("usage: cpuburn PROFILE TRACE SECONDS\n")
		os.Exit(2)
	}
	secs, err := strconv.ParseFloat(os.Args[3], 64)
	if err != nil {
		os.Stderr.WriteString("cpuburn: SECONDS: " + err.Error() + "\n")
		os.Exit(2)
	}
	pf, err := os.Create(os.Args[1])
	if err != nil {
		os.Stderr.WriteString("cpuburn: " + err.Error() + "\n")
		os.Exit(1)
	}
	tf, err := os.Create(os.Args[2])
	if err != nil {
		os.Stderr.WriteString("cpuburn: " + err.Error() + "\n")
		os.Exit(1)
	}
	n := rounds()
	if err := pprof.StartCPUProfile(pf); err != nil {
		os.Stderr.WriteString("cpuburn: " + err.Error() + "\n")
		os.Exit(1)
	}
	if err := trace.Start(tf); err != nil {
		os.Stderr.WriteString("cpuburn: " + err.Error() + "\n")
		os.Exit(1)
	}
	end := cpu() + time.Duration(secs*float64(time.Second))
	for cpu() < end {
		k := n/2 + rand.Intn(n+1)
		burnA(k)
		burnB(k)
	}
	trace.Stop()
	pprof.StopCPUProfile()
	if err := tf.Close(); err != nil {
		os.Exit(1)
	}
	if err := pf.Close(); err != nil {
		os.Exit(1)
	}
}
