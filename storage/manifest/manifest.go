package manifest

import (
	"encoding/json"
	"fmt"

	"github.com/bsdb/bsdb-pg/storage/schema"
)

// FormatVersion is the manifest format this package writes. It reads
// format 1 too (no committed_wal; every WAL transaction id in the bounded
// committed_wal_tx list); format 2 added committed_wal, which a format-1
// reader would ignore and so replay committed transactions.
const FormatVersion = 2

// MaxTrackedWALTx bounds Manifest.CommittedWALTx.
const MaxTrackedWALTx = 256

// ColumnStats are the statistics of one column in one data file.
type ColumnStats struct {
	ID        int   `json:"id"` // schema.Column.ID
	NullCount int64 `json:"null_count"`
	// Min and Max are typed JSON values (see the package documentation for
	// the encoding of each kind) or null / absent when unknown.
	Min json.RawMessage `json:"min,omitempty"`
	Max json.RawMessage `json:"max,omitempty"`
}

// DataFile is one immutable data file of the table.
type DataFile struct {
	// Path is the key relative to the table prefix, e.g. data/<uuid>.parquet.
	Path    string        `json:"path"`
	Rows    int64         `json:"rows"`
	Bytes   int64         `json:"bytes"`
	Columns []ColumnStats `json:"columns,omitempty"`
	// AddedVersion is the manifest version that first listed the file.
	AddedVersion int64 `json:"added_version"`
}

// DeleteFile is one Iceberg position delete file (format v2): rows of
// (file_path, pos) naming rows deleted from data files of the table. The
// file_path column holds each data file's full location, as Iceberg
// readers require; Data lists the same files by their relative paths.
type DeleteFile struct {
	// Path is the key relative to the table prefix, data/<uuid>-deletes.parquet.
	Path  string `json:"path"`
	Rows  int64  `json:"rows"` // deleted positions in the file
	Bytes int64  `json:"bytes"`
	// Data lists the data files (relative paths, sorted) whose rows it deletes.
	Data []string `json:"data"`
	// AddedVersion is the manifest version that first listed the file.
	AddedVersion int64 `json:"added_version"`
}

// Manifest is one version of the table: the commit point.
type Manifest struct {
	FormatVersion int    `json:"format_version"`
	TableUUID     string `json:"table_uuid"`
	// Version is N of v{N}.json; v1 is written by CREATE TABLE, with no files.
	Version     int64         `json:"version"`
	Parent      int64         `json:"parent"` // 0 for v1
	TimestampMS int64         `json:"timestamp_ms"`
	Schema      schema.Schema `json:"schema"`
	Files       []DataFile    `json:"files"`
	// Deletes are the live position delete files. Every data file they
	// name is in Files (a delete of a removed file is removed with it).
	Deletes []DeleteFile `json:"deletes,omitempty"`
	// CommittedWAL records every WAL transaction this version and its
	// ancestors committed, as ranges of each writer's counters (see
	// waltx.go), for the MaxTrackedWALWriters most recent writers.
	CommittedWAL []WriterTx `json:"committed_wal,omitempty"`
	// CommittedWALTx holds the ids of the last MaxTrackedWALTx committed WAL
	// transactions whose ids are not writer-structured (legacy), oldest first.
	CommittedWALTx []string          `json:"committed_wal_tx"`
	Properties     map[string]string `json:"properties,omitempty"`
}

// Next returns a deep copy with Version+1 and Parent set to m.Version.
// TimestampMS is left for the caller to set.
func (m *Manifest) Next() *Manifest {
	n := m.Clone()
	n.FormatVersion = FormatVersion
	n.Parent = m.Version
	n.Version = m.Version + 1
	return n
}

// Clone returns a deep copy.
func (m *Manifest) Clone() *Manifest {
	n := *m
	n.Schema = *m.Schema.Clone()
	if m.Files != nil {
		n.Files = make([]DataFile, len(m.Files))
		for i, f := range m.Files {
			f.Columns = append([]ColumnStats(nil), f.Columns...)
			n.Files[i] = f
		}
	}
	if m.Deletes != nil {
		n.Deletes = make([]DeleteFile, len(m.Deletes))
		for i, d := range m.Deletes {
			d.Data = append([]string(nil), d.Data...)
			n.Deletes[i] = d
		}
	}
	n.CommittedWALTx = append([]string(nil), m.CommittedWALTx...)
	if m.CommittedWAL != nil {
		n.CommittedWAL = make([]WriterTx, len(m.CommittedWAL))
		for i, e := range m.CommittedWAL {
			e.Ranges = append([][2]uint64(nil), e.Ranges...)
			n.CommittedWAL[i] = e
		}
	}
	if m.Properties != nil {
		n.Properties = make(map[string]string, len(m.Properties))
		for k, v := range m.Properties {
			n.Properties[k] = v
		}
	}
	return &n
}

// TotalRows is the sum of the files' row counts.
func (m *Manifest) TotalRows() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Rows
	}
	return n
}

// Validate checks the invariants a manifest must hold before it is written
// and after it is read.
func (m *Manifest) Validate() error {
	if m.FormatVersion != FormatVersion && m.FormatVersion != 1 {
		return fmt.Errorf("manifest v%d: unsupported format_version %d", m.Version, m.FormatVersion)
	}
	if m.Version < 1 {
		return fmt.Errorf("manifest: bad version %d", m.Version)
	}
	if m.Parent != m.Version-1 {
		return fmt.Errorf("manifest v%d: parent %d, want %d", m.Version, m.Parent, m.Version-1)
	}
	if err := m.Schema.Validate(); err != nil {
		return fmt.Errorf("manifest v%d: %w", m.Version, err)
	}
	if err := m.validateCommittedWAL(); err != nil {
		return err
	}
	paths := make(map[string]bool, len(m.Files))
	for i, f := range m.Files {
		if f.Path == "" || paths[f.Path] {
			return fmt.Errorf("manifest v%d: file %d: empty or duplicate path %q", m.Version, i, f.Path)
		}
		paths[f.Path] = true
		if f.Rows < 0 || f.Bytes < 0 || f.AddedVersion < 1 || f.AddedVersion > m.Version {
			return fmt.Errorf("manifest v%d: file %q: bad rows/bytes/added_version (%d/%d/%d)",
				m.Version, f.Path, f.Rows, f.Bytes, f.AddedVersion)
		}
	}
	for i, d := range m.Deletes {
		if d.Path == "" || paths[d.Path] {
			return fmt.Errorf("manifest v%d: delete file %d: empty or duplicate path %q", m.Version, i, d.Path)
		}
		paths[d.Path] = true
		if d.Rows < 0 || d.Bytes < 0 || d.AddedVersion < 1 || d.AddedVersion > m.Version {
			return fmt.Errorf("manifest v%d: delete file %q: bad rows/bytes/added_version (%d/%d/%d)",
				m.Version, d.Path, d.Rows, d.Bytes, d.AddedVersion)
		}
		for _, f := range d.Data {
			if !paths[f] {
				return fmt.Errorf("manifest v%d: delete file %q names %q, which is not a data file of this version", m.Version, d.Path, f)
			}
		}
	}
	return nil
}

// Marshal encodes m in the on-disk format (indented JSON, trailing newline).
func Marshal(m *Manifest) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	c := *m
	if c.Files == nil {
		c.Files = []DataFile{}
	}
	if c.CommittedWALTx == nil {
		c.CommittedWALTx = []string{}
	}
	b, err := json.MarshalIndent(&c, "", " ")
	if err != nil {
		return nil, fmt.Errorf("manifest v%d: encode: %w", m.Version, err)
	}
	return append(b, '\n'), nil
}

// Unmarshal decodes and validates the on-disk format.
func Unmarshal(data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest: decode: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}
