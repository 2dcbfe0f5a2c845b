package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
)

// Write writes files (as Generate returns them) under dir, touching only those whose
// bytes changed, each through a temporary file renamed into place so that a reader never
// sees half a file. It returns the paths it wrote, sorted.
func Write(dir string, files map[string][]byte) (written []string, err error) {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		target := filepath.Join(dir, filepath.FromSlash(name))
		if old, err := os.ReadFile(target); err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := writeAtomic(target, files[name]); err != nil {
			return written, err
		}
		written = append(written, name)
	}
	return written, nil
}

func writeAtomic(target string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}
