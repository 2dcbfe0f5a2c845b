package bind

import (
	"errors"
	"io"
	"strings"
	"testing"
)

type store struct{}

func TestService(t *testing.T) {
	if _, err := Service[*store]("kv", &store{}); err != nil {
		t.Fatalf("Service of the expected type: %v", err)
	}
	_, err := Service[*store]("kv", "text")
	want := `service "kv" holds a string, but its binding expects a *github.com/cordiskit/cordiskit/sandbox/bind.store`
	if err == nil || err.Error() != want {
		t.Errorf("Service of another type: got %v, want %q", err, want)
	}
	_, err = Service[io.Reader]("in", 1)
	if want := "but its binding expects a io.Reader"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Service of an interface type: got %v, want it to contain %q", err, want)
	}
}

func TestFoundAndVoid(t *testing.T) {
	if v, err := Found("x", true); v != "x" || err != nil {
		t.Errorf("Found(x, true) = %q, %v; want x, nil", v, err)
	}
	if _, err := Found("", false); err != errAbsent {
		t.Errorf("Found(_, false) error = %v; want the absent marker, which the helpers turn into undefined", err)
	}
	boom := errors.New("boom")
	if _, err := Void(boom); err != boom {
		t.Errorf("Void(err) = %v; want err", err)
	}
}
