package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordiskit/cordiskit/kit"
)

// basePrompt is the example runtime's own part of the system prompt, ahead of the
// sections of what it offers.
const basePrompt = `# The example agent runtime

You work in a work directory through this runtime's tools. Its services are fs (the files of
the work directory), exec (commands run in it) and kv (a key-value store); its events are
agent/turn-start, tools/pre-execute and session/flush. cordis_inspect shows them in full.
cordis_mount adds a throw-away plugin of your own, shared by every session, and
cordis_unmount removes it; for a Plugin the user keeps, use the dynamic-plugin tools below.`

// systemPrompt is the system prompt an agent loop gives the model of every session of
// this runtime: its own part, then the dynamic-plugin runner's section
// (docs/dynamic-plugins.md, "References and the system prompt"), which says what this
// runner's options and store mean for the model.
func (h *harness) systemPrompt() string {
	return basePrompt + "\n\n" + h.r.PromptSection()
}

// userTurn is what an agent loop does with a user's message in session: begin the turn
// (agent/turn-start) and return the context messages to put after the user's message,
// one reference block per Plugin the message mentions as @pluginId
// (docs/dynamic-plugins.md, "References and the system prompt").
func (h *harness) userTurn(ctx context.Context, session, text string) (turn int, blocks []string) {
	turn = h.rt.BeginTurn(session, text)
	return turn, h.r.ReferenceBlocks(kit.WithSession(ctx, session), text)
}

// runPrompt prints the system prompt of the example runtime (booted in a temporary
// directory, with its definitions in memory, as the demo's).
func runPrompt(ctx context.Context, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "cordiskit-prompt-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		return err
	}
	h, err := boot(work, filepath.Join(dir, "state"), slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(stdout, h.systemPrompt())
	return errors.Join(err, h.Close(context.WithoutCancel(ctx)))
}

// headings lists the markdown headings of text, one per line.
func headings(text string) string {
	var hs []string
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "#") {
			hs = append(hs, line)
		}
	}
	return strings.Join(hs, "\n")
}
