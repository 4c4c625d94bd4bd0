// SPDX-License-Identifier: GPL-2.0

// usym_go.go - the Go binary of usym_test.c: its symbol table names
// main.readLoop as Go does.
package main

import (
	"fmt"
	"os"
)

//go:noinline
func readLoop(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}

func main() {
	fmt.Fprintln(os.Stdout, readLoop(len(os.Args)))
}
