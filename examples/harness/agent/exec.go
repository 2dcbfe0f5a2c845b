package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/kit"
)

// Exec runs programs in the runtime's work directory, each bounded by a timeout. It is
// not a sandbox: a command can do whatever the host user can.
var Exec = kit.NewService[*Executor]("exec")

// Command is one program to run.
type Command struct {
	// Program is the program to run: a name looked up in PATH, or a path relative to Dir.
	Program string `json:"program"`
	// Args are the program's arguments, without the program name.
	Args []string `json:"args,omitempty"`
	// Dir is the working directory relative to the work directory; empty means the work
	// directory itself.
	Dir string `json:"dir,omitempty"`
	// Stdin is written to the program's standard input.
	Stdin string `json:"stdin,omitempty"`
	// Timeout bounds the run: milliseconds in JavaScript, nanoseconds in JSON (a Go
	// time.Duration). Zero means the executor's default; more than its maximum is cut to
	// the maximum.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// Result is how a command ended. A non-zero exit is a result, not an error.
type Result struct {
	// Stdout is what the program wrote to standard output, up to the executor's limit.
	Stdout string `json:"stdout"`
	// Stderr is what the program wrote to standard error, up to the executor's limit.
	Stderr string `json:"stderr"`
	// ExitCode is the program's exit status; -1 when it was killed (see TimedOut).
	ExitCode int `json:"exitCode"`
	// TimedOut reports that the program was killed because it ran past its timeout.
	TimedOut bool `json:"timedOut"`
	// Truncated reports that Stdout or Stderr was cut at the executor's output limit.
	Truncated bool `json:"truncated"`
	// Duration is how long the program ran: milliseconds in JavaScript, nanoseconds in
	// JSON.
	Duration time.Duration `json:"duration"`
}

// ExecOptions configures an Executor. A nil *ExecOptions means defaults.
type ExecOptions struct {
	// DefaultTimeout applies to commands without one. Zero means 30 seconds.
	DefaultTimeout time.Duration
	// MaxTimeout caps every command's timeout. Zero means 5 minutes.
	MaxTimeout time.Duration
	// MaxOutput caps Stdout and Stderr, in bytes each. Zero means 1 MiB.
	MaxOutput int
	// Env is the commands' environment. Nil means the host process's environment.
	Env []string
}

// Executor is the exec service. It is safe for concurrent use.
type Executor struct {
	dir  string
	opts ExecOptions

	mu      sync.Mutex
	running map[*exec.Cmd]struct{}
}

// NewExecutor returns an executor that runs commands in dir.
func NewExecutor(dir string, opts *ExecOptions) *Executor {
	e := &Executor{dir: dir, running: map[*exec.Cmd]struct{}{}}
	if opts != nil {
		e.opts = *opts
	}
	if e.opts.DefaultTimeout <= 0 {
		e.opts.DefaultTimeout = 30 * time.Second
	}
	if e.opts.MaxTimeout <= 0 {
		e.opts.MaxTimeout = 5 * time.Minute
	}
	if e.opts.MaxOutput <= 0 {
		e.opts.MaxOutput = 1 << 20
	}
	return e
}

// Run runs cmd and waits until it exits or its timeout kills it. The error is for a
// command that could not run at all (no program, a Dir outside the work directory, a
// program that does not exist) or a ctx that was cancelled; everything else — a non-zero
// exit, a timeout — is in the Result.
func (e *Executor) Run(ctx context.Context, cmd Command) (Result, error) {
	if cmd.Program == "" {
		return Result{}, errors.New(`exec: no program given; set program, e.g. "ls", and put its arguments in args`)
	}
	dir, err := clean(ctx, cmd.Dir)
	if err != nil {
		return Result{}, fmt.Errorf("exec: dir: %w", err)
	}
	timeout := cmd.Timeout
	if timeout <= 0 {
		timeout = e.opts.DefaultTimeout
	}
	timeout = min(timeout, e.opts.MaxTimeout)

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.CommandContext(runCtx, cmd.Program, cmd.Args...)
	c.Dir = filepath.Join(e.dir, filepath.FromSlash(dir))
	c.Env = e.opts.Env
	if cmd.Stdin != "" {
		c.Stdin = strings.NewReader(cmd.Stdin)
	}
	// Where the process tree cannot be killed, children may hold the pipes open: do not
	// wait for them forever.
	c.WaitDelay = time.Second
	start := time.Now()
	stdout, stderr, err := e.run(c)
	res := Result{
		Stdout:    stdout.buf.String(),
		Stderr:    stderr.buf.String(),
		Truncated: stdout.truncated || stderr.truncated,
		Duration:  time.Since(start),
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("exec: %s: %w", cmd.Program, context.Cause(ctx))
	case runCtx.Err() != nil:
		res.TimedOut, res.ExitCode = true, -1
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		res.ExitCode = c.ProcessState.ExitCode()
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	default:
		return res, fmt.Errorf("exec: %s: %w; check the program name (is it installed and in PATH?)", cmd.Program, err)
	}
	return res, nil
}

// run starts c in its own process group and waits for it. When the program ends — by
// itself, by its timeout or because the caller's ctx ended — the rest of its group (a
// background child such as "sleep 100 &") is killed with it, so nothing a command started
// outlives the call. Output is read through pipes the executor owns, so a child that
// escaped the group and keeps them open delays the result by WaitDelay at most.
func (e *Executor) run(c *exec.Cmd) (stdout, stderr *capped, err error) {
	stdout, stderr = &capped{max: e.opts.MaxOutput}, &capped{max: e.opts.MaxOutput}
	outR, outW, err := os.Pipe()
	if err != nil {
		return stdout, stderr, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return stdout, stderr, err
	}
	c.Stdout, c.Stderr = outW, errW
	killTree(c)
	err = c.Start()
	outW.Close() // the child holds its own copies
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return stdout, stderr, err
	}
	e.track(c, true)
	var wg sync.WaitGroup
	wg.Go(func() { io.Copy(stdout, outR) })
	wg.Go(func() { io.Copy(stderr, errR) })
	err = c.Wait()
	killGroup(c)
	e.track(c, false)
	// EOF comes once every holder of the pipes is dead; one that left the group is cut off.
	stop := time.AfterFunc(c.WaitDelay, func() {
		outR.Close()
		errR.Close()
	})
	wg.Wait()
	if stop.Stop() {
		outR.Close()
		errR.Close()
	}
	return stdout, stderr, err
}

// track adds (or removes) c to the commands Close kills.
func (e *Executor) track(c *exec.Cmd, running bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if running {
		e.running[c] = struct{}{}
	} else {
		delete(e.running, c)
	}
}

// Close kills every command still running, with its process group: what the runtime's
// commands started ends with the exec service. The runs return their results as killed.
//
//cordis:internal
func (e *Executor) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for c := range e.running {
		killGroup(c)
	}
	return nil
}

// Shell runs script with "sh -c" in the work directory, with the default timeout.
func (e *Executor) Shell(ctx context.Context, script string) (Result, error) {
	return e.Run(ctx, Command{Program: "sh", Args: []string{"-c", script}})
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if room := c.max - c.buf.Len(); len(p) > room {
		p, c.truncated = p[:max(room, 0)], true
	}
	c.buf.Write(p)
	return n, nil
}
