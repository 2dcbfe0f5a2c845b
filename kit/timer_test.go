package kit_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
)

func TestTimerEffects(t *testing.T) {
	root := newRoot(t, nil)
	timer, _ := kit.TimerService.Get(root)
	var fired, ticks atomic.Int32
	done := make(chan struct{})
	f := listen(t, root, "timers", func(c *kit.Context) error {
		if _, err := timer.SetTimeout(c, time.Millisecond, func() { fired.Add(1); close(done) }); err != nil {
			return err
		}
		if _, err := timer.SetTimeout(c, time.Hour, func() { t.Error("cancelled timeout fired") }); err != nil {
			return err
		}
		_, err := timer.SetInterval(c, time.Millisecond, func() { ticks.Add(1) })
		return err
	})
	<-done
	for ticks.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	if err := f.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := ticks.Load()
	time.Sleep(5 * time.Millisecond)
	if ticks.Load() != after {
		t.Fatal("interval kept ticking after dispose returned")
	}
	if fired.Load() != 1 {
		t.Fatalf("timeout fired %d times", fired.Load())
	}
}

func TestSleepInterruptedByDispose(t *testing.T) {
	root := newRoot(t, nil)
	timer, _ := kit.TimerService.Get(root)
	f := listen(t, root, "sleeper", noop)
	errc := make(chan error)
	go func() { errc <- timer.Sleep(context.Background(), f.Context(), time.Hour) }()
	time.Sleep(5 * time.Millisecond)
	f.Dispose(context.Background())
	if err := <-errc; !errors.Is(err, kit.ErrInactive) {
		t.Fatalf("Sleep = %v, want ErrInactive", err)
	}
	if err := timer.Sleep(context.Background(), f.Context(), time.Millisecond); !errors.Is(err, kit.ErrInactive) {
		t.Fatalf("Sleep on disposed fiber = %v", err)
	}
}
