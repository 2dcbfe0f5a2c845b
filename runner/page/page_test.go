package page

import (
	"errors"
	"fmt"
	"testing"
)

func TestSameSecret(t *testing.T) {
	s := NewSecret()
	if len(s) < 26 || s == NewSecret() {
		t.Fatalf("NewSecret = %q: want a fresh token of at least 128 bits each call", s)
	}
	for _, tc := range []struct {
		got, want string
		same      bool
	}{
		{s, s, true},
		{s + "x", s, false},
		{s[:len(s)-1], s, false},
		{"", s, false},
		{"", "", false}, // a secret never minted authorises nobody
		{"x", "", false},
	} {
		if got := SameSecret(tc.got, tc.want); got != tc.same {
			t.Errorf("SameSecret(%q, %q) = %v, want %v", tc.got, tc.want, got, tc.same)
		}
	}
}

func TestRefusals(t *testing.T) {
	inner := errors.New("disk gone")
	e := Refuse(ReasonHostHalfFailed, "host half of %s failed", "clock-1")
	e.Stack, e.Err = "at apply (clock.js:3)", inner
	wrapped := fmt.Errorf("starting: %w", e)
	if ReasonOf(wrapped) != ReasonHostHalfFailed || !errors.Is(wrapped, inner) || ReasonOf(inner) != "" || ReasonOf(nil) != "" {
		t.Fatalf("ReasonOf(%v) = %q; want the reason through a wrap, and none for other errors", wrapped, ReasonOf(wrapped))
	}
	res := HostHalfFailed(e)
	if res.OK || res.Reason != ReasonHostHalfFailed || res.Message != "host half of clock-1 failed" || res.Stack != e.Stack {
		t.Fatalf("HostHalfFailed = %+v", res)
	}
	if res := HostHalfFailed(inner); res.Reason != "" || res.Message != "disk gone" || res.Stack != "" {
		t.Fatalf("HostHalfFailed of a plain error = %+v", res)
	}
}
