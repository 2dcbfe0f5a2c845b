package pgstore

import (
	"fmt"
	"runtime/debug"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
)

// TestCloseLeavesNoListener: a Store closed at once after Open leaves no listening
// connection on the server. Close used to stop the listening goroutine before it first
// ran, and the connection Open had made for it was never closed (about one cycle in ten
// here left an idle backend). The garbage collector is off while it runs: it would close
// a leaked connection's socket when it finds it.
func TestCloseLeavesNoListener(t *testing.T) {
	dsn := pgtest.DSN(t)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const cycles = 40
	for range cycles {
		s, err := Open(bg, dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	count := fmt.Sprintf("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = '%s'", listenerName)
	var left int64
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if left = queryInt(t, dsn, count); left == 0 || time.Now().After(deadline) {
			break
		}
	}
	if left != 0 {
		t.Fatalf("%d Open/Close cycles left %d listening connections open on the server; want none", cycles, left)
	}
}
