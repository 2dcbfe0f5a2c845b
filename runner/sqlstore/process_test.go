package sqlstore

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
)

// childCmd runs this test binary as a child (see TestMain) on the store at path.
func childCmd(mode, path string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, childEnv+"_PATH="+path)
	return cmd
}

// TestLockedAcrossProcesses: another process cannot open a file this one holds, and can
// once it is closed.
func TestLockedAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	s := open(t, path, nil)
	storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
	out, err := childCmd("open", path).CombinedOutput()
	want := "sqlstore: the definition store is in use: " + path + " is held by another open definition store"
	if err == nil || !strings.HasPrefix(string(out), want) {
		t.Fatalf("a second process opening the file: %v\n%s\nwant exit status 3 and %q…", err, out, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if out, err := childCmd("open", path).CombinedOutput(); err != nil || string(out) != "opened\n" {
		t.Fatalf("after this process closed the file, the child: %v\n%s", err, out)
	}
}

// TestCrashMidBurst kills a process (SIGKILL on Unix) in the middle of a burst of
// defines: every define it acknowledged is there after a restart, nothing half-written,
// and ids continue.
func TestCrashMidBurst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	kill := 40
	if !testing.Short() {
		kill = 200
	}
	var acked []string
	for _, line := range killAfter(t, "define", path, kill) {
		acked = append(acked, line[0])
	}
	s := open(t, path, nil)
	ps, err := s.Plugins(bg, "s1")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for i, p := range ps {
		// Defined in order, each Plugin with its one Package: none half-written.
		n := i + 1
		if p.ID != fmt.Sprintf("burst-%d", n) || len(p.Packages) != 1 || p.Packages[0].ID != fmt.Sprintf("pkg-%d", n) || p.Packages[0].Host != "return (ctx) => {}" {
			t.Fatalf("plugin %d after the crash: %+v", n, p)
		}
		found[p.ID] = true
	}
	for _, id := range acked {
		if !found[id] {
			t.Fatalf("%s was acknowledged before the kill but is missing after the restart", id)
		}
	}
	p, k, err := s.Define(bg, runner.Definition{Session: "s1", Prefix: "after", Name: "n", Purpose: "p", Host: "x"})
	if err != nil || p.ID != fmt.Sprintf("after-%d", len(ps)+1) || k.ID != fmt.Sprintf("pkg-%d", len(ps)+1) {
		t.Fatalf("define after the crash: %s %s %v, want after-%d", p.ID, k.ID, err, len(ps)+1)
	}
	t.Logf("killed after %d acknowledged defines; %d found after the restart (at most one more may have committed unacknowledged)", len(acked), len(ps))
}

// killAfter runs the child of mode on path and kills it (SIGKILL on Unix) once it has
// acknowledged kill steps, returning the fields of each acknowledged line.
func killAfter(t *testing.T, mode, path string, kill int) [][]string {
	t.Helper()
	cmd := childCmd(mode, path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var acked [][]string
	deadline := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	for lines.Scan() {
		line := lines.Text()
		if line == "ready" {
			continue
		}
		if !strings.HasPrefix(line, mode+"-") && !strings.HasPrefix(line, "burst-") {
			t.Fatalf("child: %s", line)
		}
		if acked = append(acked, strings.Fields(line)); len(acked) == kill {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	_ = cmd.Wait()
	if len(acked) < kill {
		t.Fatalf("the child acknowledged %d steps before it ended, want %d", len(acked), kill)
	}
	return acked
}

// TestCrashCountersHold kills a process mid-churn (every counter moving, runs recorded
// in latest attempts) several times: each reopen finds no counter below a stored id, so
// it raises none, and every id minted afterwards is above every id acknowledged before.
func TestCrashCountersHold(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	rounds, kill := 2, 30
	if !testing.Short() {
		rounds, kill = 4, 150
	}
	highest := map[string]int64{}
	for round := range rounds {
		for _, line := range killAfter(t, "churn", path, kill) {
			for _, id := range line {
				kind, n, _ := strings.Cut(id, "-")
				v, err := strconv.ParseInt(n, 10, 64)
				if err != nil {
					t.Fatalf("child acknowledged %q", line)
				}
				highest[kind] = max(highest[kind], v)
			}
		}
		var logged bytes.Buffer
		s, err := Open(bg, path, &Options{Logger: logTo(&logged)})
		if err != nil {
			t.Fatalf("reopening after kill %d: %v", round+1, err)
		}
		if logged.Len() != 0 {
			t.Errorf("reopening after kill %d raised a counter: a crash must leave none below a stored id\n%s", round+1, logged.String())
		}
		p, k, err := s.Define(bg, runner.Definition{Session: "s1", Prefix: "churn", Name: "n", Purpose: "p", Host: "x"})
		if err != nil {
			t.Fatal(err)
		}
		run, err := s.Mint(bg, runner.CounterRun)
		if err != nil {
			t.Fatal(err)
		}
		appr, err := s.Mint(bg, runner.CounterApproval)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{p.ID, k.ID, run, appr} {
			kind, n, _ := strings.Cut(id, "-")
			if v, _ := strconv.ParseInt(n, 10, 64); v <= highest[kind] {
				t.Errorf("after kill %d, %s was minted, not above %s-%d acknowledged before", round+1, id, kind, highest[kind])
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d kills after %d acknowledged steps each; highest ids %v", rounds, kill, highest)
}
