package gen

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
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
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exitcode": cmdExitCode, "tree": cmdTree},
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

// cmdTree runs "tree": it prints every file under $WORK, sorted, with a hash of its
// bytes, so that "tree; cp stdout .tree; …; tree; cmp stdout .tree" shows any file a
// command wrote, created or removed. Dot files at the top (.tree, .gocache), _spare and
// go.sum (the go command's, not the generator's) are left out.
func cmdTree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: tree")
	}
	root := ts.Getenv("WORK")
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		top, _, _ := strings.Cut(rel, "/")
		if rel != "." && (strings.HasPrefix(top, ".") || top == "_spare" || top == "go.sum") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%x %s\n", sha256.Sum256(data), rel)
		return nil
	})
	ts.Check(err)
	_, err = ts.Stdout().Write([]byte(b.String()))
	ts.Check(err)
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
