package panel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// streamOf is n cordis/request-run events as the handler writes them.
func streamOf(b *testing.B, n int) []byte {
	b.Helper()
	data, err := json.Marshal(RequestRun{RequestID: "approval-3", Ticket: strings.Repeat("T", 26), Session: "alice", PluginID: "clock-1",
		PackageID: "pkg-1", Mode: "run", Name: "Clock", Purpose: strings.Repeat("Shows the time. ", 8), RequiresApproval: true, HasClientHalf: true})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteString(retryField)
	for i := range n {
		buf.WriteString("event: cordis/request-run\nid: abcd-" + strings.Repeat("1", i%7+1) + "\ndata: ")
		buf.Write(data)
		buf.WriteString("\n\n")
	}
	return buf.Bytes()
}

// BenchmarkEventStream reads and decodes events with EventStream (bounded, every field of
// the format) beside the floor: bufio.Scanner lines and json.Unmarshal of each data line
// into the same type, what a hand-written reader does. ratio is EventStream's time per
// event over the floor's, measured in the same run.
func BenchmarkEventStream(b *testing.B) {
	const n = 1000
	body := streamOf(b, n)
	var floor, client time.Duration
	for b.Loop() {
		t0 := time.Now()
		sc := bufio.NewScanner(bytes.NewReader(body))
		got := 0
		for sc.Scan() {
			if line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
				var q RequestRun
				if json.Unmarshal(line, &q) != nil {
					b.Fatal("floor: bad data")
				}
				got++
			}
		}
		t1 := time.Now()
		s := newEventStream(io.NopCloser(bytes.NewReader(body)), DefaultClientMaxBytes, "")
		for {
			ev, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if _, ok := ev.Payload.(RequestRun); err != nil || !ok {
				b.Fatalf("EventStream: %+v, %v", ev, err)
			}
			got--
		}
		floor, client = floor+t1.Sub(t0), client+time.Since(t1)
		if got != 0 {
			b.Fatalf("the floor read %d events more than EventStream", got)
		}
	}
	b.ReportMetric(float64(client.Nanoseconds())/float64(b.N*n), "ns/event")
	b.ReportMetric(float64(client)/float64(floor), "ratio")
}
