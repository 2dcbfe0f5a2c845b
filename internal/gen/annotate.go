package gen

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cordiskit/cordiskit/catalog/scan"
)

// A fileNote is what verify knows about a stale or missing file beyond its diff: where
// a GitHub annotation points and the command that regenerates it.
type fileNote struct {
	line      int    // stale: the first line of the file on disk that differs
	directive string // missing: "path:line" of the //go:generate line that makes it, or ""
	fix       string // the command that regenerates it
}

// An annotation is one GitHub workflow command: "::error file=…,line=…,title=…::message".
type annotation struct {
	file      string // relative to the repository root; "" for none
	line, col int
	title     string
	msg       string
}

func (a annotation) String() string {
	var props []string
	if a.file != "" {
		props = append(props, "file="+escapeProperty(a.file))
		if a.line > 0 {
			props = append(props, "line="+strconv.Itoa(a.line))
		}
		if a.col > 0 {
			props = append(props, "col="+strconv.Itoa(a.col))
		}
	}
	props = append(props, "title="+escapeProperty(a.title))
	return "::error " + strings.Join(props, ",") + "::" + escapeData(a.msg)
}

// escapeData escapes an annotation's message as the runner expects.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a property value (file, title), which also ends at ',' and ':'.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Annotate writes one GitHub workflow annotation per stale, missing and orphaned file,
// each with the command that fixes it, so that the pull request shows it in the file.
// Paths are made relative to root, the repository's root (GITHUB_WORKSPACE), from cwd,
// the directory the report's paths are relative to.
func (r *Report) Annotate(w io.Writer, cwd, root string) {
	for _, a := range r.annotations(cwd, root) {
		fmt.Fprintln(w, a)
	}
}

func (r *Report) annotations(cwd, root string) []annotation {
	at := func(p string) string { return rel(root, filepath.Join(cwd, filepath.FromSlash(p))) }
	var out []annotation
	stale := make([]string, 0, len(r.Stale))
	for p := range r.Stale {
		stale = append(stale, p)
	}
	slices.Sort(stale)
	for _, p := range stale {
		n := r.notes[p]
		out = append(out, annotation{file: at(p), line: max(n.line, 1), title: "stale generated file",
			msg: fmt.Sprintf("%s is stale: %s generates it differently from this source (verify-cordis-api prints the diff). Run %s and commit the result.", at(p), GeneratorName, n.fix)})
	}
	for _, p := range r.Missing {
		n := r.notes[p]
		a := annotation{file: at(p), title: "missing generated file",
			msg: fmt.Sprintf("%s is missing: %s generates it. Run %s and commit the result.", at(p), GeneratorName, n.fix)}
		if file, line, ok := cutLine(n.directive); ok {
			a.file, a.line = at(file), line // the file does not exist: point at the line that makes it
		}
		out = append(out, a)
	}
	for _, p := range r.Orphaned {
		out = append(out, annotation{file: at(p), line: 1, title: "orphaned generated file",
			msg: fmt.Sprintf("%s has a %s header, but no command generates it. Delete it (rm %s) and commit, or restore the //go:generate line that made it.", at(p), GeneratorName, p)})
	}
	return out
}

// cutLine splits "path:line".
func cutLine(pos string) (string, int, bool) {
	i := strings.LastIndexByte(pos, ':')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(pos[i+1:])
	return pos[:i], n, err == nil
}

// errorAnnotations turns the problems that stopped a verification into annotations:
// one per positioned diagnostic, else one for the whole error.
func errorAnnotations(err error, root string) []annotation {
	var ds scan.Diagnostics
	if !errors.As(err, &ds) {
		return []annotation{{title: VerifierName, msg: err.Error()}}
	}
	var out []annotation
	for _, d := range ds.Rel(root) {
		a := annotation{title: VerifierName + " [" + d.Rule + "]", msg: d.Message}
		if d.Line > 0 {
			a.file, a.line, a.col = d.Path, d.Line, d.Col
		} else {
			a.msg = d.Path + ": " + d.Message
		}
		out = append(out, a)
	}
	return out
}

// firstDiff returns the first line of have that differs from want, at most its last line.
func firstDiff(have, want []byte) int {
	line := 1
	for i := 0; i < len(have) && i < len(want) && have[i] == want[i]; i++ {
		if have[i] == '\n' {
			line++
		}
	}
	lines := strings.Count(string(have), "\n")
	if len(have) > 0 && have[len(have)-1] != '\n' {
		lines++
	}
	return max(min(line, lines), 1)
}
