package iceberg

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	ice "github.com/apache/iceberg-go"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// IcebergType maps a column onto its Iceberg type. Part of the published
// format: int16 widens to int, json is string, interval is fixed[16] (the
// encoding of storage/parquet.EncodeInterval).
func IcebergType(c *schema.Column) (ice.Type, error) {
	switch c.Kind {
	case schema.KindBool:
		return ice.PrimitiveTypes.Bool, nil
	case schema.KindInt16, schema.KindInt32:
		return ice.PrimitiveTypes.Int32, nil
	case schema.KindInt64:
		return ice.PrimitiveTypes.Int64, nil
	case schema.KindFloat32:
		return ice.PrimitiveTypes.Float32, nil
	case schema.KindFloat64:
		return ice.PrimitiveTypes.Float64, nil
	case schema.KindDecimal:
		return ice.DecimalTypeOf(c.Precision, c.Scale), nil
	case schema.KindString, schema.KindJSON:
		return ice.PrimitiveTypes.String, nil
	case schema.KindBinary:
		return ice.PrimitiveTypes.Binary, nil
	case schema.KindDate:
		return ice.PrimitiveTypes.Date, nil
	case schema.KindTime:
		return ice.PrimitiveTypes.Time, nil
	case schema.KindTimestamp:
		return ice.PrimitiveTypes.Timestamp, nil
	case schema.KindTimestampTZ:
		return ice.PrimitiveTypes.TimestampTz, nil
	case schema.KindInterval:
		return ice.FixedTypeOf(16), nil
	case schema.KindUUID:
		return ice.PrimitiveTypes.UUID, nil
	}
	return nil, fmt.Errorf("iceberg: column %q: no Iceberg type for kind %v", c.Name, c.Kind)
}

// IcebergSchema converts sch, keeping the column ids as Iceberg field ids.
func IcebergSchema(sch *schema.Schema, schemaID int) (*ice.Schema, error) {
	fields := make([]ice.NestedField, len(sch.Columns))
	for i := range sch.Columns {
		c := &sch.Columns[i]
		t, err := IcebergType(c)
		if err != nil {
			return nil, err
		}
		fields[i] = ice.NestedField{ID: c.ID, Name: c.Name, Type: t, Required: c.NotNull}
	}
	return ice.NewSchema(schemaID, fields...), nil
}

// boundBytes converts a manifest min/max (typed JSON) into Iceberg's
// single-value binary serialization. ok=false when there is no bound.
func boundBytes(c *schema.Column, raw json.RawMessage) (b []byte, ok bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, nil
	}
	var lit interface{ MarshalBinary() ([]byte, error) }
	switch c.Kind {
	case schema.KindBool:
		var v bool
		err = json.Unmarshal(raw, &v)
		lit = ice.BoolLiteral(v)
	case schema.KindInt16, schema.KindInt32:
		var v int32
		err = json.Unmarshal(raw, &v)
		lit = ice.Int32Literal(v)
	case schema.KindInt64:
		var v int64
		err = json.Unmarshal(raw, &v)
		lit = ice.Int64Literal(v)
	case schema.KindFloat32:
		var v float32
		err = json.Unmarshal(raw, &v)
		lit = ice.Float32Literal(v)
	case schema.KindFloat64:
		var v float64
		err = json.Unmarshal(raw, &v)
		lit = ice.Float64Literal(v)
	case schema.KindDecimal:
		var s string
		if err = json.Unmarshal(raw, &s); err == nil {
			var n decimal128.Num
			n, err = decimal128.FromString(s, int32(c.Precision), int32(c.Scale))
			lit = ice.DecimalLiteral(ice.Decimal{Val: n, Scale: c.Scale})
		}
	case schema.KindString, schema.KindJSON:
		var s string
		err = json.Unmarshal(raw, &s)
		lit = ice.StringLiteral(s)
	case schema.KindBinary:
		var s string
		if err = json.Unmarshal(raw, &s); err == nil {
			var v []byte
			v, err = base64.StdEncoding.DecodeString(s)
			lit = ice.BinaryLiteral(v)
		}
	case schema.KindDate:
		var v int32
		err = json.Unmarshal(raw, &v)
		lit = ice.DateLiteral(v)
	case schema.KindTime:
		var v int64
		err = json.Unmarshal(raw, &v)
		lit = ice.TimeLiteral(v)
	case schema.KindTimestamp, schema.KindTimestampTZ:
		var v int64
		err = json.Unmarshal(raw, &v)
		lit = ice.TimestampLiteral(v)
	case schema.KindUUID:
		var s string
		if err = json.Unmarshal(raw, &s); err == nil {
			var u uuid.UUID
			u, err = uuid.Parse(s)
			lit = ice.UUIDLiteral(u)
		}
	default:
		return nil, false, nil // no bounds for this kind (interval)
	}
	if err != nil {
		return nil, false, fmt.Errorf("iceberg: column %q: bound %s: %w", c.Name, raw, err)
	}
	b, err = lit.MarshalBinary()
	if err != nil {
		return nil, false, fmt.Errorf("iceberg: column %q: bound %s: %w", c.Name, raw, err)
	}
	return b, true, nil
}

// dataFile builds the Iceberg data file for f (path made absolute by uri).
func dataFile(sch *schema.Schema, f *manifest.DataFile, uri string) (ice.DataFile, error) {
	bld, err := ice.NewDataFileBuilder(*ice.UnpartitionedSpec, ice.EntryContentData, uri, ice.ParquetFile,
		nil, nil, nil, f.Rows, f.Bytes)
	if err != nil {
		return nil, fmt.Errorf("iceberg: data file %s: %w", f.Path, err)
	}
	byID := make(map[int]*schema.Column, len(sch.Columns))
	for i := range sch.Columns {
		byID[sch.Columns[i].ID] = &sch.Columns[i]
	}
	values, nulls := map[int]int64{}, map[int]int64{}
	lower, upper := map[int][]byte{}, map[int][]byte{}
	for _, cs := range f.Columns {
		c := byID[cs.ID]
		if c == nil {
			continue // a dropped column's stats
		}
		values[cs.ID] = f.Rows
		nulls[cs.ID] = cs.NullCount
		if b, ok, err := boundBytes(c, cs.Min); err != nil {
			return nil, fmt.Errorf("iceberg: data file %s: %w", f.Path, err)
		} else if ok {
			lower[cs.ID] = b
		}
		if b, ok, err := boundBytes(c, cs.Max); err != nil {
			return nil, fmt.Errorf("iceberg: data file %s: %w", f.Path, err)
		} else if ok {
			upper[cs.ID] = b
		}
	}
	return bld.ValueCounts(values).NullValueCounts(nulls).LowerBoundValues(lower).UpperBoundValues(upper).Build(), nil
}

// Field ids of a position delete file's columns (Iceberg's reserved ids).
var (
	posDeleteFilePathID = ice.PositionalDeleteSchema.Fields()[0].ID
	posDeletePosID      = ice.PositionalDeleteSchema.Fields()[1].ID
)

// deleteFile builds the Iceberg position delete file for d (path made
// absolute by uri). Its file_path bounds are the lowest and highest
// location of the data files it names (the file_path column holds exactly
// those), so readers match it only to them; with exactly one data file the
// bounds are equal, which readers take as referenced_data_file. That field
// is set too, but iceberg-go v0.7.0 writes it only in v3 manifests.
func (p *Publisher) deleteFile(d *manifest.DeleteFile, uri string) (ice.DataFile, error) {
	bld, err := ice.NewDataFileBuilder(*ice.UnpartitionedSpec, ice.EntryContentPosDeletes, uri, ice.ParquetFile,
		nil, nil, nil, d.Rows, d.Bytes)
	if err != nil {
		return nil, fmt.Errorf("iceberg: delete file %s: %w", d.Path, err)
	}
	if len(d.Data) == 0 {
		return bld.Build(), nil
	}
	lo, hi := "", ""
	for i, f := range d.Data {
		u := p.store.URI(p.prefix + "/" + f)
		if i == 0 || u < lo {
			lo = u
		}
		if i == 0 || u > hi {
			hi = u
		}
	}
	if len(d.Data) == 1 {
		bld.ReferencedDataFile(lo)
	}
	counts := map[int]int64{posDeleteFilePathID: d.Rows, posDeletePosID: d.Rows}
	nulls := map[int]int64{posDeleteFilePathID: 0, posDeletePosID: 0}
	return bld.ValueCounts(counts).NullValueCounts(nulls).
		LowerBoundValues(map[int][]byte{posDeleteFilePathID: []byte(lo)}).
		UpperBoundValues(map[int][]byte{posDeleteFilePathID: []byte(hi)}).Build(), nil
}
