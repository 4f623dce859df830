package objstore

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// Mem is an in-memory Store for unit tests. It honours the full contract,
// conditional writes included; versions are content hashes as on Local.
type Mem struct {
	mu struct {
		sync.Mutex
		objects map[string][]byte
	}
}

var _ Store = (*Mem)(nil)

// NewMem returns an empty in-memory store.
func NewMem() *Mem {
	m := &Mem{}
	m.mu.objects = map[string][]byte{}
	return m
}

func (m *Mem) check(ctx context.Context, op, key string) error {
	if err := ctxErr(ctx, op, key); err != nil {
		return err
	}
	if err := ValidateKey(key); err != nil {
		return opErr(op, key, err)
	}
	return nil
}

// Get implements Store.
func (m *Mem) Get(ctx context.Context, key string) ([]byte, Version, error) {
	if err := m.check(ctx, "get", key); err != nil {
		return nil, "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	data, ok := m.mu.objects[key]
	if !ok {
		return nil, "", opErr("get", key, ErrNotFound)
	}
	return append([]byte(nil), data...), contentVersion(data), nil
}

// Put implements Store.
func (m *Mem) Put(ctx context.Context, key string, data []byte) error {
	if err := m.check(ctx, "put", key); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mu.objects[key] = append([]byte(nil), data...)
	return nil
}

// PutFile implements Store.
func (m *Mem) PutFile(ctx context.Context, key string, localPath string) error {
	data, err := os.ReadFile(localPath)
	if err != nil {
		return opErr("putfile", key, mapFSErr(err))
	}
	return m.Put(ctx, key, data)
}

// PutIfAbsent implements Store.
func (m *Mem) PutIfAbsent(ctx context.Context, key string, data []byte) (Version, error) {
	if err := m.check(ctx, "putifabsent", key); err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.mu.objects[key]; ok {
		return "", opErr("putifabsent", key, ErrExists)
	}
	m.mu.objects[key] = append([]byte(nil), data...)
	return contentVersion(data), nil
}

// PutIfMatch implements Store.
func (m *Mem) PutIfMatch(ctx context.Context, key string, data []byte, v Version) (Version, error) {
	if err := m.check(ctx, "putifmatch", key); err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.mu.objects[key]
	if !ok {
		return "", opErr("putifmatch", key, fmt.Errorf("%w: object is missing", ErrPrecondition))
	}
	if contentVersion(cur) != v {
		return "", opErr("putifmatch", key, ErrPrecondition)
	}
	m.mu.objects[key] = append([]byte(nil), data...)
	return contentVersion(data), nil
}

// Delete implements Store.
func (m *Mem) Delete(ctx context.Context, key string) error {
	if err := m.check(ctx, "delete", key); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.mu.objects, key)
	return nil
}

// List implements Store.
func (m *Mem) List(ctx context.Context, prefix string) ([]Info, error) {
	if err := ctxErr(ctx, "list", prefix); err != nil {
		return nil, err
	}
	if err := validatePrefix(prefix); err != nil {
		return nil, opErr("list", prefix, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Info
	for k, v := range m.mu.objects {
		if strings.HasPrefix(k, prefix) {
			out = append(out, Info{Key: k, Size: int64(len(v))})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// URI implements Store.
func (m *Mem) URI(key string) string { return "mem:///" + key }
