package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/cordiskit/cordiskit/internal/benchfix"
)

// TestScale runs the scale sweeps: up to 10,000 live mounts of plugin-body.js (mount all,
// one emit reaching all, unmount all) and up to 1,000 JavaScript listeners on one event,
// and logs how time and memory grow. Correctness is checked (every mount active, the emit
// reaches the last listener, no listener fails); the growth is reported, not asserted,
// since wall time on a shared machine is noise. docs/PERFORMANCE.md quotes its output:
//
//	go test -run TestScale -v ./internal/cmd/benchcmp
func TestScale(t *testing.T) {
	switch {
	case testing.Short():
		t.Skip("the scale sweeps take about half a minute; skipped with -short")
	case raceEnabled:
		t.Skip("the race detector makes the scale numbers meaningless; run without -race")
	}
	var out bytes.Buffer
	if err := printScale(context.Background(), &out, catalogued(benchfix.PluginBody), fullScale); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
}

// TestScaleTiny checks the sweeps themselves at a tiny size, also under -short and -race.
func TestScaleTiny(t *testing.T) {
	var out bytes.Buffer
	if err := printScale(context.Background(), &out, catalogued(benchfix.PluginBody), tinyScale); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte("growth exponent 5→10")) {
		t.Errorf("no growth row:\n%s", out.String())
	}
}
