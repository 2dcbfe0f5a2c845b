package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/cordiskit/cordiskit/kit"
)

// KVFile is the file KVPersistPlugin keeps the kv store in, inside the runtime's state
// directory (Options.StateDir).
const KVFile = "kv.json"

// maxKVFile is the largest kv file the loader reads: what a full store saves, plus the
// braces and newlines around the entries.
const maxKVFile = MaxKVBytes + 8

// KVPersistPlugin saves the kv store to KVFile in dir on every session/flush and loads it
// back when it starts. dir is the runtime's own state directory, outside the work
// directory, and the plugin uses plain os calls, not the fs service: no plugin a model
// mounts can reach the file through a service, so none can make the runtime unable to
// save or to boot.
//
// Loading never fails the plugin: a file that is not a regular file, is larger than a full
// store saves, cannot be read or is not a JSON object of strings is logged, renamed to a
// "kv.json.bad-<time>" sibling and replaced by an empty store. Saving writes a temporary
// file and renames it over KVFile, so a crash leaves the old or the new file, never half
// of one.
func KVPersistPlugin(dir string) *kit.Plugin {
	return &kit.Plugin{Name: "kv-persist", Inject: []string{KV.Key()}, Apply: func(c *kit.Context) error {
		store, _ := KV.Get(c)
		logger := c.Logger()
		if err := ensureStateDir(dir, logger); err != nil {
			return err
		}
		loadKV(dir, store, logger)
		_, err := SessionFlush.On(c, func(ctx context.Context, _ SessionFlushEvent) error {
			return saveKV(dir, store, logger)
		})
		return err
	}}
}

// checkStateDir refuses a state directory inside the work directory, where the fs service
// would serve the runtime's own state to every plugin.
func checkStateDir(state, work string) error {
	if state == "" {
		return nil
	}
	s, err1 := resolved(state)
	w, err2 := resolved(work)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("agent: Options.StateDir: %w", err)
	}
	if rel, err := filepath.Rel(w, s); err == nil && filepath.IsLocal(rel) {
		return fmt.Errorf("agent: Options.StateDir %q is inside the work directory %q, where the fs service would serve the runtime's own state to plugins; choose a directory outside it, e.g. next to it", state, work)
	}
	return nil
}

// resolved is dir made absolute with the symbolic links of its existing part resolved.
func resolved(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	var rest []string
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if filepath.Dir(p) == p {
			return abs, nil
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

// ensureStateDir creates dir when missing; something else in its place is set aside.
func ensureStateDir(dir string, logger *slog.Logger) error {
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		setAside(dir, "the state directory is not a directory", logger)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("kv-persist: cannot create the state directory (%v); check Options.StateDir and its permissions", bare(err))
	}
	return nil
}

// loadKV fills store from the kv file in dir. A file it cannot use is set aside.
func loadKV(dir string, store *Store, logger *slog.Logger) {
	path := filepath.Join(dir, KVFile)
	entries, err := readKV(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		setAside(path, err.Error(), logger)
		return
	}
	fresh := NewStore()
	for k, v := range entries {
		if err := fresh.Set(k, v); err != nil {
			setAside(path, "it holds more than the kv store's budget", logger)
			return
		}
	}
	for k, v := range entries {
		_ = store.Set(k, v) // fits: fresh held all of them
	}
}

func readKV(path string) (map[string]string, error) {
	f, err := openRegular(func(flag int) (*os.File, error) { return os.OpenFile(path, flag, 0) }, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKVFile+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("it cannot be read (%v)", bare(err))
	case len(b) > maxKVFile:
		return nil, fmt.Errorf("it is larger than %d bytes, more than a full kv store saves", maxKVFile)
	}
	var entries map[string]string
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("it is not a JSON object of strings (%v)", err)
	}
	return entries, nil
}

// saveKV writes store to the kv file in dir: a temporary file renamed over it. Something
// other than a regular file in its place is set aside first.
func saveKV(dir string, store *Store, logger *slog.Logger) error {
	b, err := json.MarshalIndent(store.Snapshot(), "", "  ")
	if err != nil {
		return err
	}
	if err := ensureStateDir(dir, logger); err != nil {
		return err
	}
	path := filepath.Join(dir, KVFile)
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		setAside(path, "it is not a regular file", logger)
	}
	tmp, err := os.CreateTemp(dir, KVFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("kv-persist: saving %s: %v", KVFile, bare(err))
	}
	_, err = tmp.Write(append(b, '\n'))
	err = errors.Join(err, tmp.Sync(), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("kv-persist: saving %s: %v", KVFile, bare(err))
	}
	return nil
}

// setAside renames a state file the runtime cannot use to a ".bad-<time>" sibling, so the
// runtime starts afresh while the old content stays for a person to look at.
func setAside(path, why string, logger *slog.Logger) {
	bad := path + ".bad-" + time.Now().UTC().Format("20060102T150405.000000000")
	if err := os.Rename(path, bad); err != nil {
		logger.Error("kv-persist: cannot set aside a state file it cannot use; remove it by hand", "file", path, "reason", why, "err", err)
		return
	}
	logger.Warn("kv-persist: set aside a state file it cannot use; starting without it", "file", path, "reason", why, "moved-to", filepath.Base(bad))
}

// bare strips the host path from an os error: errors a model may read name files
// relative to a directory it knows, never where they are on the host.
func bare(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	case errors.As(err, &le):
		return fmt.Errorf("%s: %w", le.Op, le.Err)
	}
	return err
}
