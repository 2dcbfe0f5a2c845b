package pgstore

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/google/go-cmp/cmp"
)

// TestIdsUniqueAcrossProcesses: three processes (this test binary, run three times) each
// define a third of 10,000 Plugins at once, from eight goroutines each, on one database.
// No Plugin or Package id is minted twice, every acknowledged define is stored with the
// ids it was acknowledged with, and the numbers have no gaps: the counters are rows the
// minting transaction updates, so a number is taken only by a define that committed.
func TestIdsUniqueAcrossProcesses(t *testing.T) {
	total := 10_000
	if testing.Short() {
		total = 900
	}
	const procs, workers = 3, 8
	dsn := pgtest.DSN(t)
	open(t, dsn, nil) // the schema, made once before the race to define
	var (
		mu    sync.Mutex
		acked = map[string]string{} // Plugin id → Package id
		dups  []string
		wg    sync.WaitGroup
	)
	errs := make(chan error, procs)
	for i := range procs {
		n := total / procs
		if i == 0 {
			n += total % procs
		}
		cmd := childCmd(dsn, fmt.Sprintf("define %d %d", n, workers))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			var tail []string
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) != 2 || !strings.HasPrefix(f[0], "burst-") {
					tail = append(tail, sc.Text())
					continue
				}
				mu.Lock()
				if _, seen := acked[f[0]]; seen {
					dups = append(dups, f[0])
				}
				acked[f[0]] = f[1]
				mu.Unlock()
			}
			_, _ = io.Copy(io.Discard, out)
			if err := cmd.Wait(); err != nil || len(tail) != 1 || tail[0] != "done" {
				errs <- fmt.Errorf("child %d: %v\n%s\n%s", i, err, strings.Join(tail, "\n"), stderr.String())
				return
			}
			errs <- nil
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(dups) > 0 {
		t.Fatalf("ids acknowledged twice: %v", dups[:min(len(dups), 10)])
	}
	packages := map[string]bool{}
	for _, k := range acked {
		if packages[k] {
			t.Fatalf("package id %s acknowledged twice", k)
		}
		packages[k] = true
	}
	s := open(t, dsn, nil)
	ps, err := s.Plugins(bg, "")
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	for _, p := range ps {
		if len(p.Packages) != 1 {
			t.Fatalf("%s has %d packages, want 1", p.ID, len(p.Packages))
		}
		stored[p.ID] = p.Packages[0].ID
	}
	if diff := cmp.Diff(acked, stored); diff != "" {
		t.Fatalf("the stored Plugins differ from those the processes acknowledged (-acked +stored):\n%s", diff)
	}
	want := map[string]string{}
	for n := 1; n <= total; n++ {
		want[fmt.Sprintf("burst-%d", n)] = ""
	}
	got := map[string]string{}
	for id := range stored {
		got[id] = ""
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Plugin numbers are not 1…%d (-want +got):\n%s", total, diff)
	}
}
