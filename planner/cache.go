package planner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// fetch copies an immutable remote object into the local cache once.
func (e *Engine) fetch(ctx context.Context, key, path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	data, _, err := e.store.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", key, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fetch-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
