// SPDX-License-Identifier: GPL-2.0

// gomerge_app - the Go ground truth of merging a Go program's own
// execution trace with gotrace's kernel trace: a program whose runtime
// tracer (a file written with -trace, or net/http/pprof's
// /debug/pprof/trace) and the kernel see the same known events.
//
// One goroutine, locked to its thread and that thread pinned to CPU 0,
// spins in main.spinKnown for -spin, starting -spin-after after the
// start: the kernel trace has the thread running on CPU 0 except when
// something else takes the CPU (fifo_hog.c, at SCHED_FIFO priority 50),
// while the Go trace has the goroutine running all along.  Another,
// with -read, reads a file with O_DIRECT from the same moment on: its
// time goes to the disk, seen as syscalls by the Go trace and as I/O
// blocking by the kernel's.  Both print their thread's id and their
// start and end in CLOCK_MONOTONIC ns, the clock of both traces: read
// with the clock_gettime syscall (RawSyscall: no syscall event in the Go
// trace, and none every 100k iterations of the spin), not time.Now,
// whose monotonic reading is not guaranteed to be that clock.
// GOMAXPROCS is 2, so that the runtime's own work and the reader never
// wait for the spinning goroutine's P.
//
// usage: gomerge_app [-http ADDR] [-unix PATH] [-trace FILE] [-ready FILE]
//
//	[-spin-after D] [-start-when FILE] [-spin D] [-read FILE] [-linger D]
//
// Every line goes out in one write(2), on an unbuffered stdout:
//
//	listening ADDR                     -http's address, its port chosen
//	listening unix:PATH                -unix's socket
//	spin tid=TID start=MONO_NS         pinned to CPU 0, entering main.spinKnown
//	spin end=MONO_NS                   out of main.spinKnown
//	read odirect unsupported           O_DIRECT gave EINVAL (tmpfs): a
//	                                   plain read after POSIX_FADV_DONTNEED
//	read tid=TID start=MONO_NS end=MONO_NS bytes=N
//	trace stopped file=FILE            -trace's file complete and closed
//	exit reason=done|SIGNAL            the last line; the exit status is 0
//
// The spin and the read end in the order they end, and exit comes
// -linger after both; the spin's thread lives until the exit.  With
// -start-when FILE the spin and the read wait, after -spin-after, until
// FILE exists.  SIGTERM or SIGINT ends the program at once (the
// trace stopped first, so its file is complete), with exit reason=
// terminated or interrupt.  -ready FILE is created, empty, after the
// listening lines, so that a shell can wait for it.  With -spin 0
// nothing spins: the program ends -linger after the read, or after the
// start without -read.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"runtime/trace"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

const (
	chunk      = 1 << 20 // each read(2)
	align      = 4096    // O_DIRECT's buffer alignment, a page
	dontNeed   = 4       // POSIX_FADV_DONTNEED
	checkEvery = 100000  // spin iterations between clock reads
	spinCPU    = 0
)

var sink uint64

// startWhen: -start-when's file, whose existence starts the spin and the
// read (after -spin-after), so that a test starts them once both
// tracers run.
var startWhen string

func waitStart() {
	for startWhen != "" {
		if _, err := os.Stat(startWhen); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// say writes one line in one write(2): os.Stdout is not buffered, and
// lines of different goroutines do not interleave.
func say(format string, args ...interface{}) {
	os.Stdout.WriteString(fmt.Sprintf(format, args...) + "\n")
}

func die(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "gomerge_app: "+format+"\n", args...)
	os.Exit(1)
}

// monoNS is CLOCK_MONOTONIC in ns, by the syscall (the clock of the
// kernel's trace and of Go's), RawSyscall: no syscall event in the Go
// trace for it.
func monoNS() int64 {
	var ts syscall.Timespec
	_, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 1,
		uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		die("clock_gettime: %v", errno)
	}
	return ts.Nano()
}

// spinKnown spins on the CPU until d has passed, the monotonic clock
// read every checkEvery iterations only, so that nearly all of its time
// is this loop's.  Not inlined: the frame the tests look for.
//
//go:noinline
func spinKnown(d time.Duration) {
	end := monoNS() + d.Nanoseconds()
	v := sink
	for {
		for i := uint64(0); i < checkEvery; i++ {
			v = v*31 + i
		}
		if monoNS() >= end {
			break
		}
	}
	sink = v
}

// pin puts the calling thread, the goroutine locked to it, on cpu only.
func pin(cpu int) {
	var mask [1024 / 64]uint64
	mask[cpu/64] = 1 << (cpu % 64)
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0,
		unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
	if errno != 0 {
		die("sched_setaffinity to CPU %d: %v", cpu, errno)
	}
}

func spin(after, d time.Duration) {
	time.Sleep(after)
	waitStart()
	// Locked for good: the pinned thread runs no other goroutine, and
	// it stays, parked, once the spin is over (main), so that its
	// /proc/PID/task/TID/{stat,schedstat} can be read until the exit.
	runtime.LockOSThread()
	pin(spinCPU)
	say("spin tid=%d start=%d", syscall.Gettid(), monoNS())
	spinKnown(d)
	say("spin end=%d", monoNS())
}

// alignedBuf is n bytes starting at an address that is a multiple of
// align, as O_DIRECT wants (Go's allocator promises no such alignment).
func alignedBuf(n int) []byte {
	b := make([]byte, n+align)
	off := int(-uintptr(unsafe.Pointer(&b[0])) & (align - 1))
	return b[off : off+n]
}

func readFile(after time.Duration, path string) {
	time.Sleep(after)
	waitStart()
	// One thread for the whole read, the one whose id is printed.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := alignedBuf(chunk)
	start := monoNS()
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECT|syscall.O_CLOEXEC, 0)
	if err == syscall.EINVAL {
		say("read odirect unsupported")
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == nil {
			// Out of the page cache where it can be (not on
			// tmpfs, where the pages are the file): the read
			// then waits for the disk.  Failure only costs that.
			syscall.Syscall6(syscall.SYS_FADVISE64, uintptr(fd), 0, 0,
				dontNeed, 0, 0)
		}
	}
	if err != nil {
		die("open %s: %v", path, err)
	}
	total := int64(0)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			die("read %s: %v", path, err)
		}
		if n == 0 {
			break
		}
		total += int64(n)
	}
	end := monoNS()
	syscall.Close(fd)
	say("read tid=%d start=%d end=%d bytes=%d", syscall.Gettid(), start,
		end, total)
}

func serve(l net.Listener) {
	// Ends with an error when the listener is closed at exit.
	http.Serve(l, nil)
}

func main() {
	httpAddr := flag.String("http", "", "serve net/http/pprof on TCP `ADDR`")
	unixPath := flag.String("unix", "", "serve net/http/pprof on the Unix socket `PATH`")
	traceFile := flag.String("trace", "", "write the runtime's execution trace to `FILE`")
	ready := flag.String("ready", "", "create `FILE` once listening")
	spinAfter := flag.Duration("spin-after", 0, "start the spin and the read after this")
	spinFor := flag.Duration("spin", 2*time.Second, "spin on CPU 0 for this long")
	readPath := flag.String("read", "", "read `FILE` with O_DIRECT when the spin starts")
	linger := flag.Duration("linger", 0, "keep serving this long after the spin and read")
	flag.StringVar(&startWhen, "start-when", "", "start the spin and the read once `FILE` exists")
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	runtime.GOMAXPROCS(2)

	// Before anything else, so that the trace holds all of it.
	var tf *os.File
	if *traceFile != "" {
		var err error
		tf, err = os.Create(*traceFile)
		if err != nil {
			die("%v", err)
		}
		if err := trace.Start(tf); err != nil {
			die("trace: %v", err)
		}
	}
	// Stops the trace and closes its file, once: the signal handler's
	// exit and the normal one may race.
	var stopOnce sync.Once
	stopTrace := func() {
		stopOnce.Do(func() {
			if tf == nil {
				return
			}
			trace.Stop()
			if err := tf.Close(); err != nil {
				die("trace: %v", err)
			}
			say("trace stopped file=%s", *traceFile)
		})
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)

	var listeners []net.Listener
	if *httpAddr != "" {
		l, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			die("%v", err)
		}
		listeners = append(listeners, l)
		say("listening %s", l.Addr())
	}
	if *unixPath != "" {
		// A socket left by an earlier run would make bind fail.
		if fi, err := os.Lstat(*unixPath); err == nil &&
			fi.Mode()&os.ModeSocket != 0 {
			os.Remove(*unixPath)
		}
		l, err := net.Listen("unix", *unixPath)
		if err != nil {
			die("%v", err)
		}
		listeners = append(listeners, l)
		say("listening unix:%s", *unixPath)
	}
	for _, l := range listeners {
		go serve(l)
	}
	if *ready != "" {
		f, err := os.Create(*ready)
		if err != nil {
			die("%v", err)
		}
		f.Close()
	}

	var work sync.WaitGroup
	if *spinFor > 0 {
		work.Add(1)
		go func() {
			spin(*spinAfter, *spinFor)
			work.Done()
			// A locked goroutine that returns takes its
			// thread with it: this one never returns.
			select {}
		}()
	}
	if *readPath != "" {
		work.Add(1)
		go func() {
			defer work.Done()
			readFile(*spinAfter, *readPath)
		}()
	}
	done := make(chan struct{})
	go func() {
		work.Wait()
		time.Sleep(*linger)
		close(done)
	}()

	reason := "done"
	select {
	case <-done:
	case sig := <-sigs:
		reason = sig.String()
	}
	stopTrace()
	// Closing a Unix listener removes its socket.
	for _, l := range listeners {
		l.Close()
	}
	say("exit reason=%s", reason)
	os.Exit(0)
}
