package pgstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/cordiskit/cordiskit/runner"
)

// childEnv makes the test binary a child process on the store at $childEnv_DSN: "open"
// opens the store and prints "opened" or the error; "define N W" defines N Plugins from
// W goroutines, printing each acknowledged Plugin and Package id, then "done".
const childEnv = "CORDIS_PGSTORE_CHILD"

func childCmd(dsn, mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, childEnv+"_DSN="+dsn)
	return cmd
}

func child(mode, dsn string) int {
	ctx := context.Background()
	s, err := Open(ctx, dsn, nil)
	if err != nil {
		fmt.Println("error:", err)
		return 2
	}
	defer s.Close()
	var n, workers int
	if _, err := fmt.Sscanf(mode, "define %d %d", &n, &workers); err != nil {
		fmt.Println("opened")
		return 0
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := 0
	failed := false
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				p, k, err := s.Define(ctx, runner.Definition{Session: "s" + strconv.Itoa(i%7), Prefix: "burst", Name: "Burst", Purpose: "An id test.", Host: "return (ctx) => {}"})
				mu.Lock()
				if err != nil {
					fmt.Println("error:", err)
					failed = true
				} else {
					fmt.Println(p.ID, k.ID) // acknowledged: Define returned
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	fmt.Println("done")
	if failed {
		return 2
	}
	return 0
}
