// SPDX-License-Identifier: GPL-2.0

// go123trace writes real Go execution traces in the generational format, and
// damaged copies of them, for the host tests of the readers and of
// check-trace.sh.  Built at test time with the Go whose format is wanted:
// Go 1.23 writes "go 1.23 trace", Go 1.27 writes "go 1.26 trace".
//
//	go123trace record FILE          a workload traced into FILE
//	go123trace cut MODE IN OUT      a damaged copy of IN
//	go123trace repeat N IN OUT      IN with its second generation N times
//
// The workload runs long enough for several generations (the runtime ends
// one about every second): goroutines that block on channels, a mutex, a
// pipe read, sleeps and file syscalls.
//
// Cut modes (generation and batch boundaries are found by walking the
// batches, see walk()):
//
//	gen-boundary   the header and every generation but the last
//	mid-gen        stop after half the batches of the last generation
//	mid-batch      stop in the middle of a batch of the last generation
//	middle-gen     stop in the middle of a batch of the second generation
//	corrupt        the first event batch's first event type becomes 0x7f
//	               (no event has that type)
//
// repeat makes a large file of many generations for the memory bound of
// a reader that keeps one generation: the header, the first generation,
// then the second one N times, numbered on, then nothing else.  Only the
// structure is valid: the copies repeat statuses that no longer hold,
// which Go's readers refuse.
package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"runtime/trace"
	"sync"
	"time"
)

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go123trace: "+format+"\n", args...)
	os.Exit(1)
}

// workload runs for about d: every kind of wait the readers classify.
func workload(d time.Duration) {
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ch := make(chan int)
	r, w, err := os.Pipe()
	if err != nil {
		die("pipe: %v", err)
	}
	wg.Add(4)
	go func() { // channel receiver
		defer wg.Done()
		for range ch {
		}
	}()
	go func() { // channel sender, and the mutex
		defer wg.Done()
		for time.Now().Before(end) {
			mu.Lock()
			ch <- 1
			time.Sleep(time.Millisecond)
			mu.Unlock()
		}
		close(ch)
	}()
	go func() { // the mutex from another goroutine, and pipe writes
		defer wg.Done()
		buf := []byte{1}
		for time.Now().Before(end) {
			mu.Lock()
			mu.Unlock()
			if _, err := w.Write(buf); err != nil {
				die("write: %v", err)
			}
			time.Sleep(2 * time.Millisecond)
		}
		w.Close()
	}()
	go func() { // blocking pipe reads (syscalls) until the writer closes
		defer wg.Done()
		buf := make([]byte, 1)
		for {
			if _, err := r.Read(buf); err != nil {
				return
			}
		}
	}()
	for time.Now().Before(end) { // file syscalls of the main goroutine
		if _, err := os.Stat("/"); err != nil {
			die("stat: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	wg.Wait()
	r.Close()
}

func record(path string) {
	f, err := os.Create(path)
	if err != nil {
		die("%v", err)
	}
	bw := bufio.NewWriter(f)
	if err := trace.Start(bw); err != nil {
		die("trace.Start: %v", err)
	}
	workload(2500 * time.Millisecond)
	trace.Stop()
	if err := bw.Flush(); err != nil {
		die("%s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		die("%s: %v", path, err)
	}
}

// A batch (or the bare end-of-generation byte of "go 1.26").
type batch struct {
	off, end int    // bytes [off, end) of the file
	gen      uint64 // generation
	m, time  uint64 // its M and base time
	data     int    // offset of its first data byte
	eog      bool   // the end-of-generation byte
}

func uvarint(b []byte, off int) (uint64, int) {
	var v uint64
	for i := 0; i < 10 && off+i < len(b); i++ {
		v |= uint64(b[off+i]&0x7f) << (7 * i)
		if b[off+i]&0x80 == 0 {
			return v, off + i + 1
		}
	}
	die("bad value at offset %d", off)
	return 0, 0
}

// walk lists the batches of a whole trace: 0x01 gen m time size data...,
// or 0x34 alone after a generation of a "go 1.26" trace.
func walk(b []byte) []batch {
	var bs []batch
	var gen uint64
	for off := 16; off < len(b); {
		if b[off] == 0x34 {
			bs = append(bs, batch{off: off, end: off + 1, gen: gen, eog: true})
			off++
			continue
		}
		if b[off] != 0x01 {
			die("no batch at offset %d", off)
		}
		p := off + 1
		var m, ts uint64
		gen, p = uvarint(b, p)
		m, p = uvarint(b, p)
		ts, p = uvarint(b, p)
		size, p := uvarint(b, p)
		bs = append(bs, batch{off: off, end: p + int(size), gen: gen,
			m: m, time: ts, data: p})
		off = p + int(size)
	}
	return bs
}

func cut(mode, in, out string) {
	b, err := os.ReadFile(in)
	if err != nil {
		die("%v", err)
	}
	bs := walk(b)
	last := bs[len(bs)-1].gen
	first := bs[0].gen
	var lastGen []batch
	for _, x := range bs {
		if x.gen == last {
			lastGen = append(lastGen, x)
		}
	}
	if last == first {
		die("%s has one generation: nothing to cut", in)
	}
	var res []byte
	switch mode {
	case "gen-boundary":
		res = b[:lastGen[0].off]
	case "mid-gen":
		res = b[:lastGen[len(lastGen)/2].off]
	case "mid-batch":
		x := lastGen[len(lastGen)/2]
		res = b[:(x.data+x.end)/2]
	case "middle-gen":
		for _, x := range bs {
			if x.gen == first+1 && !x.eog && x.end-x.data > 8 {
				res = b[:(x.data+x.end)/2]
				break
			}
		}
	case "corrupt":
		res = append([]byte(nil), b...)
		for _, x := range bs {
			// An event batch: its data starts with an event type,
			// not with a table or sync marker.
			if !x.eog && x.end > x.data {
				switch b[x.data] {
				case 0x02, 0x04, 0x08, 0x32:
					continue
				}
				res[x.data] = 0x7f
				break
			}
		}
	default:
		die("unknown cut mode %s", mode)
	}
	if res == nil {
		die("%s: no place for %s", in, mode)
	}
	if err := os.WriteFile(out, res, 0o644); err != nil {
		die("%v", err)
	}
}

func repeat(count, in, out string) {
	var n int
	if _, err := fmt.Sscan(count, &n); err != nil || n < 1 {
		die("bad count %q", count)
	}
	b, err := os.ReadFile(in)
	if err != nil {
		die("%v", err)
	}
	bs := walk(b)
	first := bs[0].gen
	var second []batch
	end := 0
	for _, x := range bs {
		if x.gen == first {
			end = x.end
		} else if x.gen == first+1 {
			second = append(second, x)
		}
	}
	if len(second) == 0 {
		die("%s has one generation: nothing to repeat", in)
	}
	f, err := os.Create(out)
	if err != nil {
		die("%v", err)
	}
	w := bufio.NewWriter(f)
	w.Write(b[:end])
	for i := 0; i < n; i++ {
		for _, x := range second {
			if x.eog {
				w.WriteByte(0x34)
				continue
			}
			h := []byte{0x01}
			h = binary.AppendUvarint(h, first+1+uint64(i))
			h = binary.AppendUvarint(h, x.m)
			h = binary.AppendUvarint(h, x.time)
			h = binary.AppendUvarint(h, uint64(x.end-x.data))
			w.Write(h)
			w.Write(b[x.data:x.end])
		}
	}
	if err := w.Flush(); err != nil {
		die("%s: %v", out, err)
	}
	if err := f.Close(); err != nil {
		die("%s: %v", out, err)
	}
}

func main() {
	switch {
	case len(os.Args) == 3 && os.Args[1] == "record":
		record(os.Args[2])
	case len(os.Args) == 5 && os.Args[1] == "cut":
		cut(os.Args[2], os.Args[3], os.Args[4])
	case len(os.Args) == 5 && os.Args[1] == "repeat":
		repeat(os.Args[2], os.Args[3], os.Args[4])
	default:
		die("usage: go123trace record FILE | go123trace cut MODE IN OUT | go123trace repeat N IN OUT")
	}
}
