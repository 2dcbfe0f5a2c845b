package agent

import "github.com/cordiskit/cordiskit/kit"

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

// ExecPlugin provides the exec service, running commands in dir. Commands still running
// when the plugin goes are killed with their process groups.
func ExecPlugin(dir string, opts *ExecOptions) *kit.Plugin {
	return &kit.Plugin{Name: "exec", Apply: func(c *kit.Context) error {
		e := NewExecutor(dir, opts)
		if err := c.Effect(e.Close); err != nil {
			return err
		}
		return Exec.Provide(c, e)
	}}
}

// KVPlugin provides store as the kv service. The store outlives the plugin, so its
// entries survive an unload.
func KVPlugin(store *Store) *kit.Plugin {
	return &kit.Plugin{Name: "kv", Apply: func(c *kit.Context) error {
		return KV.Provide(c, store)
	}}
}
