// Command halfdur prints half of a Go duration (scripts/soak.sh splits its
// budget between the SIGKILL loop and the linearizability check).
package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: halfdur DURATION")
		os.Exit(2)
	}
	d, err := time.ParseDuration(os.Args[1])
	if err != nil || d <= 0 {
		fmt.Fprintln(os.Stderr, "halfdur: bad duration:", os.Args[1])
		os.Exit(2)
	}
	fmt.Println(d / 2)
}
