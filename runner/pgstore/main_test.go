package pgstore

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); strings.HasPrefix(mode, "runner ") {
		var ttl int
		fmt.Sscanf(mode, "runner %d", &ttl)
		os.Exit(runnerChild(context.Background(), os.Getenv(childEnv+"_DSN"), ttl, strings.HasSuffix(mode, " define")))
	} else if mode != "" {
		os.Exit(child(mode, os.Getenv(childEnv+"_DSN")))
	}
	pgtest.Main(m)
}

var bg = context.Background()

// open opens a store on dsn and closes it when the test ends.
func open(t testing.TB, dsn string, opts *Options) *Store {
	t.Helper()
	s, err := Open(bg, dsn, opts)
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
	storetest.Run(t, func(t *testing.T) runner.Store { return open(t, pgtest.DSN(t), nil) })
}

func TestDurable(t *testing.T) {
	dsn := pgtest.DSN(t)
	storetest.Durable(t, func(t *testing.T) (runner.Store, func()) {
		s, err := Open(bg, dsn, nil)
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
