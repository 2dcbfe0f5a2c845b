package main

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/cordiskit/cordiskit"
)

// BenchmarkBoot and BenchmarkBootEmptyStore measure what a durable, empty definition store
// adds to the example's start (issue 16: ≤ 5 ms): the same boot, once with definitions in
// memory and once opening a fresh STATE/definitions.db first. Run them together:
//
//	go test ./examples/harness -run '^$' -bench 'Boot' -benchtime 30x
func BenchmarkBoot(b *testing.B) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for b.Loop() {
		h, err := bootWith(b.TempDir(), b.TempDir(), logger, nil)
		if err != nil {
			b.Fatal(err)
		}
		_ = h.Close(context.Background())
	}
}

func BenchmarkBootEmptyStore(b *testing.B) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for b.Loop() {
		state := b.TempDir()
		h, err := bootWith(b.TempDir(), state, logger, &cordiskit.Options{StoreFile: storeFile(state)})
		if err != nil {
			b.Fatal(err)
		}
		_ = h.Close(context.Background())
	}
}
