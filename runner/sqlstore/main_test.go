package sqlstore

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"go.uber.org/goleak"
)

// childEnv makes the test binary a child process: "define PATH" defines Packages in a
// loop and prints each acknowledged id until it is killed; "churn PATH" does the same,
// minting a run and an approval for each and recording the run as the Plugin's latest
// attempt; "open PATH" tries to open the store and prints the error.
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
	if mode == "churn" {
		return churn(ctx, s)
	}
	for {
		p, k, err := s.Define(ctx, runner.Definition{Session: "s1", Prefix: "burst", Name: "Burst", Purpose: "A crash test.", Host: "return (ctx) => {}"})
		if err != nil {
			fmt.Println("error:", err)
			return 2
		}
		fmt.Println(p.ID, k.ID) // acknowledged: Define returned
	}
}

// churn moves every counter, each step one define, two mints and an update, and prints
// the four ids once the update returned.
func churn(ctx context.Context, s *Store) int {
	for {
		p, k, err := s.Define(ctx, runner.Definition{Session: "s1", Prefix: "churn", Name: "Churn", Purpose: "A crash test.", Host: "return (ctx) => {}"})
		if err != nil {
			fmt.Println("error:", err)
			return 2
		}
		run, err := s.Mint(ctx, runner.CounterRun)
		if err != nil {
			fmt.Println("error:", err)
			return 2
		}
		appr, err := s.Mint(ctx, runner.CounterApproval)
		if err != nil {
			fmt.Println("error:", err)
			return 2
		}
		a := &dynamic.Attempt{PluginRunID: run, PackageID: k.ID, ApprovalRequestID: appr, Mode: dynamic.ModeRun, Status: dynamic.RunAwaitingApproval}
		if _, err := s.Update(ctx, p.ID, runner.Change{Attempt: a, Next: &k.ID}); err != nil {
			fmt.Println("error:", err)
			return 2
		}
		fmt.Println(p.ID, k.ID, run, appr)
	}
}
