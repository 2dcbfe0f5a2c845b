package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/cordiskit/cordiskit/mcpkit"
)

// The environment variables that fix a token when no file is given. A token is never a
// command-line argument: /proc/PID/cmdline (ps) shows those to every local user.
const (
	mcpTokenEnv   = "CORDIS_MCP_TOKEN"
	panelTokenEnv = "CORDIS_PANEL_TOKEN"
)

// maxSecretFile bounds a token file; a file of tokens is small.
const maxSecretFile = 1 << 20

// readSecretFile reads a file of secrets that flag names: a regular file that no other
// user can read or change (on Unix; Windows has no mode bits to check), at most
// maxSecretFile bytes.
func readSecretFile(flag, path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", flag, path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s: not a regular file (%s); write the tokens to a file", flag, path, fi.Mode().Type())
	}
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return nil, fmt.Errorf("%s %s: other users can read or change it (mode %04o), so every local user could use the tokens in it; run chmod 600 %s", flag, path, perm, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", flag, path, err)
	}
	defer f.Close()
	if fi2, err := f.Stat(); err != nil || !os.SameFile(fi, fi2) {
		return nil, fmt.Errorf("%s %s: the file changed while it was opened; try again", flag, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", flag, path, err)
	}
	if len(b) > maxSecretFile {
		return nil, fmt.Errorf("%s %s: larger than %d bytes; a token file holds tokens", flag, path, maxSecretFile)
	}
	return b, nil
}

// A tokenSource is where a token came from: a file, an environment variable, or neither
// (made at random for this process, and then printed for the person who starts it).
type tokenSource struct {
	file, env string
}

// shown is how the token appears on stderr: itself when it was made here, else where it
// is, so that a secret kept in a file or the environment is not copied into logs.
func (s tokenSource) shown(token string) string {
	switch {
	case s.file != "":
		return "<the token in " + s.file + ">"
	case s.env != "":
		return "$" + s.env
	}
	return token
}

// resolveToken is one token: the content of file (flag names it), else $env, else a
// random one. A token from a file or the environment must be one a client could not
// guess (mcpkit.CheckToken).
func resolveToken(flag, file, env string) (string, tokenSource, error) {
	var tok string
	var src tokenSource
	switch {
	case file != "":
		b, err := readSecretFile(flag, file)
		if err != nil {
			return "", src, err
		}
		tok, src.file = strings.TrimSpace(string(b)), file
	case os.Getenv(env) != "":
		tok, src.env = strings.TrimSpace(os.Getenv(env)), env
	default:
		return rand.Text(), src, nil
	}
	if err := mcpkit.CheckToken(mcpkit.Token{Token: tok}); err != nil {
		where := "$" + env
		if file != "" {
			where = flag + " " + file
		}
		return "", src, fmt.Errorf("the token in %s: %v", where, err)
	}
	return tok, src, nil
}

// loadSessionTokens reads the file of -session-tokens: one person a line, "SESSION
// TOKEN" (the session name the token proves, then the token); # begins a comment, to the
// end of the line, and blank lines are skipped. Every problem is reported, by line,
// without the tokens.
func loadSessionTokens(path string) ([]mcpkit.Token, error) {
	b, err := readSecretFile("-session-tokens", path)
	if err != nil {
		return nil, err
	}
	return parseSessionTokens(path, b)
}

// parseSessionTokens parses the content b of the -session-tokens file at path.
func parseSessionTokens(path string, b []byte) ([]mcpkit.Token, error) {
	var tokens []mcpkit.Token
	var errs []error
	seen := map[string]int{} // token → line
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxSecretFile)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#") // no token has a #
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			errs = append(errs, fmt.Errorf("%s:%d: %d words; write SESSION TOKEN (a session name, a space, its token), and # before a comment", path, n, len(fields)))
			continue
		}
		t := mcpkit.Token{Session: fields[0], Token: fields[1]}
		if err := mcpkit.CheckToken(t); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: session %s: %v", path, n, t.Session, err))
			continue
		}
		if first, dup := seen[t.Token]; dup {
			errs = append(errs, fmt.Errorf("%s:%d: session %s has the token of line %d; give each person a token of their own", path, n, t.Session, first))
			continue
		}
		seen[t.Token] = n
		tokens = append(tokens, t)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %v", path, err))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return tokens, nil
}

// sessionLookup is the panel's Options.Sessions for the tokens of -session-tokens: a
// person's token opens that person's session only. Nil when there are none.
func sessionLookup(tokens []mcpkit.Token) func(token string) (session string, ok bool) {
	if len(tokens) == 0 {
		return nil
	}
	byHash := map[[sha256.Size]byte]string{} // looked up by hash: no lookup compares secrets
	for _, t := range tokens {
		byHash[sha256.Sum256([]byte(t.Token))] = t.Session
	}
	return func(token string) (string, bool) {
		s, ok := byHash[sha256.Sum256([]byte(token))]
		return s, ok
	}
}
