package gen

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain makes the two commands available to the scripts, in-process and on $PATH
// (so that go generate finds gen-cordis-api).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		GeneratorName: func() { os.Exit(GenMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) },
		VerifierName:  func() { os.Exit(VerifyMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script: throwaway modules that use this repository (through
// a replace directive to $CORDISKIT) and drive both commands.
func TestScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	goEnv := goEnvVars(t, "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT")
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("CORDISKIT", root)
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			// Everything comes from the module cache: no network, no checksum database.
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOSUMDB", "off")
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv("GOFLAGS", "-mod=mod")
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exitcode": cmdExitCode},
	})
}

// cmdExitCode runs "exitcode N command args..." and checks the exit status is N.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		got = exit.ExitCode()
	} else {
		ts.Check(err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

func goEnvVars(t *testing.T, names ...string) map[string]string {
	out, err := exec.Command("go", append([]string{"env"}, names...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	m := map[string]string{}
	for i, n := range names {
		m[n] = vals[i]
	}
	return m
}
