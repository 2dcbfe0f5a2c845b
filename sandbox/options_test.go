package sandbox

import (
	"strings"
	"testing"
	"time"
)

// Options.Validate refuses what no default can stand in for, names each bad field with how
// to fix it, and New panics with the same error instead of silently using a default.
func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *Options
		want []string // substrings of the error; none means valid
	}{
		{name: "nil", opts: nil},
		{name: "zero", opts: &Options{Timeouts: &Timeouts{}, Limits: &Limits{}}},
		{name: "positive", opts: &Options{Timeouts: &Timeouts{VM: time.Second}, Limits: &Limits{MaxTimerShare: 100, Teardown: time.Second}}},
		{name: "negative timeout", opts: &Options{Timeouts: &Timeouts{Call: -time.Second}},
			want: []string{"sandbox: Timeouts.Call is -1s: it must be positive, or zero for the default (10s)"}},
		{name: "every bad field", opts: &Options{Timeouts: &Timeouts{VM: -1, Mount: -1}, Limits: &Limits{MaxNodes: -5, Teardown: -1, MaxTimerShare: 150}},
			want: []string{"Timeouts.VM is -1ns", "Timeouts.Mount is -1ns", "Limits.MaxNodes is -5: it must be positive, or zero for the default (1048576)",
				"Limits.Teardown is -1ns", "Limits.MaxTimerShare is 150: it is a percentage of wall time, at most 100"}},
		{name: "negative share", opts: &Options{Limits: &Limits{MaxTimerShare: -1}}, want: []string{"Limits.MaxTimerShare is -1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				New(tc.opts).Close(t.Context())
				return
			}
			if err == nil {
				t.Fatalf("Validate = nil, want an error containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate = %v\nwant it to contain %q", err, w)
				}
			}
			defer func() {
				got, _ := recover().(error)
				if got == nil || got.Error() != err.Error() {
					t.Errorf("New panicked with %v, want the Validate error %v", got, err)
				}
			}()
			New(tc.opts)
		})
	}
}
