package sqlstore

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"go.uber.org/goleak"
)

// childEnv makes the test binary a child process: "define PATH" defines Packages in a
// loop and prints each acknowledged id until it is killed; "open PATH" tries to open the
// store and prints the error.
const childEnv = "CORDIS_SQLSTORE_CHILD"

func TestMain(m *testing.M) {
	if mode, path := os.Getenv(childEnv), os.Getenv(childEnv+"_PATH"); mode != "" {
		os.Exit(child(mode, path))
	}
	goleak.VerifyTestMain(m)
}

func child(mode, path string) int {
	ctx := context.Background()
	s, err := Open(ctx, path, nil)
	if mode == "open" {
		if err != nil {
			fmt.Println(err)
			return 3
		}
		fmt.Println("opened")
		s.Close()
		return 0
	}
	if err != nil {
		fmt.Println(err)
		return 2
	}
	fmt.Println("ready")
	for {
		p, k, err := s.Define(ctx, runner.Definition{Session: "s1", Prefix: "burst", Name: "Burst", Purpose: "A crash test.", Host: "return (ctx) => {}"})
		if err != nil {
			fmt.Println("error:", err)
			return 2
		}
		fmt.Println(p.ID, k.ID) // acknowledged: Define returned
	}
}
