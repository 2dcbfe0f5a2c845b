package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/cordiskit/cordiskit/internal/benchfix"
)

const usage = `usage: go run ./internal/cmd/benchcmp [-quick] [-rounds N] [-only GROUPS] [-scale]
                                  [-body FILE] [-cpuprofile FILE] [-memprofile FILE]

benchcmp measures cordiskit's performance figures, each beside its floor in the same
process, and prints a markdown table: median (min–max) over the rounds, the ratio
computed within each round, the target and whether it is met. Progress goes to stderr.

groups: %s
`

func main() {
	os.Exit(mainCode(os.Args[1:], os.Stdout, os.Stderr))
}

func mainCode(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchcmp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintf(stderr, usage, groupNames()); fs.PrintDefaults() }
	quick := fs.Bool("quick", false, "a smoke run: fewer rounds, mounts and listeners, shorter batches, a smaller synthetic module")
	rounds := fs.Int("rounds", 0, "rounds (default 5, or 2 with -quick)")
	only := fs.String("only", "", "comma-separated groups to run (default all)")
	scale := fs.Bool("scale", false, "run the scale sweeps (10,000 mounts, 1,000 listeners) instead of the table")
	body := fs.String("body", "", "plugin body to mount (default: the anchors' plugin-body.js, embedded)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	memprofile := fs.String("memprofile", "", "write an allocation profile of the run to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg := fullConfig
	if *quick {
		cfg = quickConfig
	}
	if *rounds > 0 {
		cfg.rounds = *rounds
	}
	if *only != "" {
		cfg.only = map[string]bool{}
		for _, g := range strings.Split(*only, ",") {
			if !slices.Contains(strings.Split(groupNames(), ", "), g) {
				fmt.Fprintf(stderr, "benchcmp: unknown group %q; the groups are %s\n", g, groupNames())
				return 2
			}
			cfg.only[g] = true
		}
	}
	src := benchfix.PluginBody
	if *body != "" {
		data, err := os.ReadFile(*body)
		if err != nil {
			fmt.Fprintf(stderr, "benchcmp: %v\n", err)
			return 2
		}
		src = string(data)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "benchcmp: %v\n", err)
			return 2
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "benchcmp: %v\n", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	if *memprofile != "" {
		runtime.MemProfileRate = 4096
		defer writeHeapProfile(*memprofile, stderr)
	}
	start := time.Now()
	if *scale {
		if err := printScale(ctx, stdout, catalogued(src), fullScale); err != nil {
			fmt.Fprintf(stderr, "benchcmp: %v\n", err)
			return 1
		}
	} else {
		b := &bench{cfg: cfg, body: catalogued(src), log: stderr}
		res, err := b.run(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "benchcmp: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n\n", environment())
		res.print(stdout, cfg.rounds)
	}
	fmt.Fprintf(stderr, "benchcmp: done in %.1fs\n", time.Since(start).Seconds())
	return 0
}

func groupNames() string {
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.name
	}
	return strings.Join(names, ", ")
}

func writeHeapProfile(file string, stderr io.Writer) {
	f, err := os.Create(file)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchcmp: writing the memory profile: %v\n", err)
	}
}

// environment is the line that says where the numbers come from, with the load average at
// the end of the run (other processes on a shared machine are the main source of noise).
func environment() string {
	load := "load average unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			load = "load average " + strings.Join(f[:3], " ")
		}
	}
	return fmt.Sprintf("%s %s/%s, GOMAXPROCS=%d, %d CPU(s), %s, %s", runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.GOMAXPROCS(0), runtime.NumCPU(), load, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
}
