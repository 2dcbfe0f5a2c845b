package sqlstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
)

var bg = context.Background()

// open opens a store in file of dir and closes it when the test ends.
func open(t *testing.T, path string, opts *Options) *Store {
	t.Helper()
	s, err := Open(bg, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) runner.Store { return open(t, filepath.Join(t.TempDir(), "d.db"), nil) })
}

func TestDurable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "definitions.db")
	storetest.Durable(t, func(t *testing.T) (runner.Store, func()) {
		s, err := Open(bg, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s, func() {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		}
	})
}
