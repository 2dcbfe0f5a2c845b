package agent_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/examples/harness/agent"
)

func TestStore(t *testing.T) {
	s := agent.NewStore()
	tests := []struct {
		op, key, value string
		want           string // Get: value; Has/Delete: true/false; Keys: space-joined
	}{
		{op: "get", key: "missing", want: ""},
		{op: "has", key: "missing", want: "false"},
		{op: "set", key: "b", value: "2"},
		{op: "set", key: "a", value: "1"},
		{op: "set", key: "empty", value: ""},
		{op: "get", key: "a", want: "1"},
		{op: "has", key: "empty", want: "true"},
		{op: "keys", want: "a b empty"},
		{op: "set", key: "a", value: "one"},
		{op: "get", key: "a", want: "one"},
		{op: "delete", key: "a", want: "true"},
		{op: "delete", key: "a", want: "false"},
		{op: "has", key: "a", want: "false"},
		{op: "keys", want: "b empty"},
	}
	for i, tt := range tests {
		var got string
		switch tt.op {
		case "get":
			got = s.Get(tt.key)
		case "has":
			got = fmt.Sprint(s.Has(tt.key))
		case "set":
			s.Set(tt.key, tt.value)
			continue
		case "delete":
			got = fmt.Sprint(s.Delete(tt.key))
		case "keys":
			got = strings.Join(s.Keys(), " ")
		}
		if got != tt.want {
			t.Errorf("step %d: %s(%q) = %q, want %q", i, tt.op, tt.key, got, tt.want)
		}
	}
	snap := s.Snapshot()
	snap["b"] = "changed"
	if s.Get("b") != "2" || !reflect.DeepEqual(s.Snapshot(), map[string]string{"b": "2", "empty": ""}) {
		t.Errorf("Snapshot is not a copy: %v", s.Snapshot())
	}
}

func TestStoreConcurrent(t *testing.T) {
	s := agent.NewStore()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				k := fmt.Sprint("k", i%10)
				s.Set(k, fmt.Sprint(w))
				_ = s.Get(k)
				_ = s.Keys()
				if i%7 == 0 {
					s.Delete(k)
				}
			}
		})
	}
	wg.Wait()
	if n := len(s.Keys()); n > 10 {
		t.Fatalf("%d keys", n)
	}
}
