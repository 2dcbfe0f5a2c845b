package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/cordiskit/cordiskit/kit"
)

// FSPlugin provides the fs service as a DirFS rooted in dir, closed when the plugin goes.
func FSPlugin(dir string) *kit.Plugin {
	return &kit.Plugin{Name: "fs", Apply: func(c *kit.Context) error {
		d, err := OpenDirFS(dir)
		if err != nil {
			return err
		}
		if err := c.Effect(d.Close); err != nil {
			d.Close()
			return err
		}
		return FS.Provide(c, d)
	}}
}

// ExecPlugin provides the exec service, running commands in dir.
func ExecPlugin(dir string, opts *ExecOptions) *kit.Plugin {
	return &kit.Plugin{Name: "exec", Apply: func(c *kit.Context) error {
		return Exec.Provide(c, NewExecutor(dir, opts))
	}}
}

// KVPlugin provides store as the kv service. The store outlives the plugin, so its
// entries survive an unload.
func KVPlugin(store *Store) *kit.Plugin {
	return &kit.Plugin{Name: "kv", Apply: func(c *kit.Context) error {
		return KV.Provide(c, store)
	}}
}

// KVFile is where KVPersistPlugin keeps the kv store, relative to the work directory.
const KVFile = ".harness/kv.json"

// KVPersistPlugin saves the kv store to KVFile through the fs service on every
// session/flush, and loads it back when it starts. It injects fs and kv, so it waits for
// both — whichever plugin provides them. A file it cannot parse fails the plugin rather
// than being overwritten, and New reports it.
func KVPersistPlugin() *kit.Plugin {
	return &kit.Plugin{Name: "kv-persist", Inject: []string{FS.Key(), KV.Key()}, Apply: func(c *kit.Context) error {
		files, _ := FS.Get(c)
		store, _ := KV.Get(c)
		if err := loadKV(files, store); err != nil {
			return err
		}
		_, err := SessionFlush.On(c, func(ctx context.Context, _ SessionFlushEvent) error {
			b, err := json.MarshalIndent(store.Snapshot(), "", "  ")
			if err != nil {
				return err
			}
			return files.WriteFile(ctx, KVFile, string(b)+"\n")
		})
		return err
	}}
}

func loadKV(files FileSystem, store *Store) error {
	data, err := files.ReadFile(context.Background(), KVFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var entries map[string]string
	if err := json.Unmarshal([]byte(data), &entries); err != nil {
		return fmt.Errorf("kv-persist: %s is not a JSON object of strings (%v); fix or delete it, then restart", KVFile, err)
	}
	for k, v := range entries {
		store.Set(k, v)
	}
	return nil
}
