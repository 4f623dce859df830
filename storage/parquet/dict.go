package parquet

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// String dictionaries. A string, json or binary column is
// dictionary-encoded: one PLAIN dictionary page per column chunk, then
// RLE_DICTIONARY data pages, unless its dictionary passes the dictionary
// page size limit (1 MiB), when the chunk goes PLAIN. What this file
// changes is who builds the dictionary. arrow-go's encoder hashes every
// value through a memo table that takes it as an interface{}, one heap
// allocation per row (BinaryMemoTable.InsertOrGet: 28% of WriteFile's CPU
// on the events table, BenchmarkWriteEvents). Here a dictColumn builds the
// row group's dictionary and indices with a Go map, and the column chunk is
// handed to arrow-go once, at the end of the row group, as one
// dictionary<int32> array: its writer seeds its memo table with the
// dictionary values only and copies the indices (writeDictionaryArrow in
// pqarrow/encode_dict_compute.go), and the chunk's statistics come from the
// dictionary values, not from every row (see seedDictionary and
// dictColumn.hasEmpty for the two gaps of that path this package fills).
// The file's schema is unchanged: the Arrow schema stored in it says utf8
// or binary, not dictionary, and readers see a plain string column.
//
// The pages differ from arrow-go's own:
//   - indices handed over directly are not counted towards the data page
//     size (arrow-go sizes dictionary-encoded pages by the raw bytes of
//     their values), so a dictionary column chunk is one data page: indices
//     bit-packed to at most 18 bits (a 1 MiB dictionary holds at most
//     262144 values), so at most 270 KiB for a 122880-row group before
//     compression. One page compresses better: the events table's files
//     are 8% smaller;
//   - when the dictionary overflows, arrow-go re-encodes the rows it holds
//     as PLAIN (they are not flushed as pages yet), so the chunk is as a
//     rule PLAIN throughout instead of dictionary pages followed by PLAIN
//     ones (smaller, and cheaper to read).

// dictColumn accumulates one string or binary column of the open row group
// as a dictionary (values in order of first appearance) and one index per
// row. Once the dictionary would pass limit (its PLAIN-encoded size: 4
// bytes of length and the bytes of each value), the builder stops: the
// caller writes what it holds and the rest of the row group goes to
// arrow-go's own encoder, which falls back to PLAIN.
type dictColumn struct {
	valueType arrow.DataType // arrow.BinaryTypes.String or .Binary
	nullable  bool
	limit     int

	index   map[string]int32
	data    []byte  // the dictionary values, concatenated
	offsets []int32 // len(dictionary)+1 offsets into data
	size    int     // PLAIN-encoded size of the dictionary
	// hasEmpty: the dictionary holds the empty value, which arrow-go
	// leaves out of the statistics it takes from a dictionary
	// (ByteArrayStatistics.UpdateFromArrow skips zero-length values);
	// the writer puts it back (Writer.flushDict).
	hasEmpty bool

	idx   []int32 // one per row, 0 for a NULL
	valid []byte  // validity bitmap of idx
	nulls int
	// full: the dictionary reached limit; the rows after idx are written
	// by arrow-go until the row group ends.
	full bool
}

func newDictColumn(valueType arrow.DataType, nullable bool, limit int64) *dictColumn {
	return &dictColumn{valueType: valueType, nullable: nullable, limit: int(limit), index: map[string]int32{}, offsets: []int32{0}}
}

// binaryValues is what *array.String and *array.Binary share.
type binaryValues interface {
	arrow.Array
	ValueOffsets() []int32
}

// add appends the rows of a (a string or binary array) and returns how
// many it took: fewer than a.Len() when the dictionary filled up (d.full),
// and then the caller writes the rest of a and of the row group itself.
func (d *dictColumn) add(a arrow.Array) (int, error) {
	ba, ok := a.(binaryValues)
	if !ok {
		return 0, fmt.Errorf("BUG: dictionary column of %s, want %s", a.DataType(), d.valueType)
	}
	n := a.Len()
	rows := len(d.idx)
	var buf []byte
	if b := a.Data().Buffers()[2]; b != nil {
		buf = b.Bytes()
	}
	offs := ba.ValueOffsets()
	hasNulls := a.NullN() > 0
	d.idx = slices.Grow(d.idx, n)
	taken := n
	for i := 0; i < n; i++ {
		if hasNulls && a.IsNull(i) {
			d.idx = append(d.idx, 0)
			continue
		}
		v := buf[offs[i]:offs[i+1]]
		j, ok := d.index[string(v)] // no allocation: the compiler looks up v's bytes
		if !ok {
			if d.size+4+len(v) > d.limit {
				taken = i
				d.full = true
				break
			}
			j = int32(len(d.offsets) - 1)
			d.index[string(v)] = j
			d.data = append(d.data, v...)
			d.offsets = append(d.offsets, int32(len(d.data)))
			d.size += 4 + len(v)
			d.hasEmpty = d.hasEmpty || len(v) == 0
		}
		d.idx = append(d.idx, j)
	}
	d.valid = growBitmap(d.valid, rows+taken)
	if hasNulls {
		bitutil.CopyBitmap(a.NullBitmapBytes(), a.Data().Offset(), taken, d.valid, rows)
		d.nulls += taken - bitutil.CountSetBits(d.valid, rows, taken)
	} else {
		bitutil.SetBitsTo(d.valid, int64(rows), int64(taken), true)
	}
	return taken, nil
}

// rows is the number of rows held.
func (d *dictColumn) rows() int { return len(d.idx) }

// array returns the rows held as a dictionary<int32, valueType> array (the
// caller releases it) and their definition levels (nil for a NOT NULL
// column). They alias d's buffers until reset.
func (d *dictColumn) array(levels []int16) (arrow.Array, []int16) {
	n := len(d.idx)
	dict := array.NewData(d.valueType, len(d.offsets)-1,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(d.offsets)), memory.NewBufferBytes(d.data)}, nil, 0, 0)
	defer dict.Release()
	var validity *memory.Buffer
	if d.nulls > 0 {
		validity = memory.NewBufferBytes(d.valid)
	}
	typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: d.valueType}
	data := array.NewDataWithDictionary(typ, n,
		[]*memory.Buffer{validity, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(d.idx))}, d.nulls, 0, dict)
	defer data.Release()
	var def []int16
	if d.nullable {
		def = definitionLevels(levels, d.valid, 0, n, d.nulls > 0)
	}
	return array.MakeFromData(data), def
}

// reset empties d for the next row group, keeping its memory.
func (d *dictColumn) reset() {
	clear(d.index)
	d.data = d.data[:0]
	d.offsets = d.offsets[:1]
	d.size = 0
	d.hasEmpty = false
	d.idx = d.idx[:0]
	d.nulls = 0
	d.full = false
}

// definitionLevels returns levels (reused) holding n definition levels of a
// flat optional column: 1 for a value, 0 for a NULL, as given by the
// validity bitmap valid from bit offset off.
func definitionLevels(levels []int16, valid []byte, off, n int, hasNulls bool) []int16 {
	if cap(levels) < n {
		levels = make([]int16, n)
	}
	levels = levels[:n]
	for i := range levels {
		levels[i] = 1
	}
	if hasNulls {
		for i := range levels {
			if !bitutil.BitIsSet(valid, off+i) {
				levels[i] = 0
			}
		}
	}
	return levels
}

// growBitmap makes b hold at least bits bits, keeping its content.
func growBitmap(b []byte, bits int) []byte {
	need := int(bitutil.BytesForBits(int64(bits)))
	if need <= len(b) {
		return b
	}
	if need <= cap(b) {
		return b[:need]
	}
	t := make([]byte, need, 2*need)
	copy(t, b)
	return t
}

// flushDict writes the rows column i's dictionary holds as one dictionary
// array: arrow-go writes the dictionary page from its values and the
// indices as they are.
func (w *Writer) flushDict(i int) error {
	d := w.dicts[i]
	if d.rows() == 0 {
		return nil
	}
	cw, err := w.rg.Column(i)
	if err != nil {
		return err
	}
	a, def := d.array(w.levels)
	defer a.Release()
	if def != nil {
		w.levels = def
	}
	if err := seedDictionary(cw, a); err != nil {
		return fmt.Errorf("column %q: %w", w.fileSchema.Field(i).Name, err)
	}
	if err := pqarrow.WriteArrowToColumn(w.ctx, cw, a, def, nil, d.nullable && d.nulls > 0); err != nil {
		return fmt.Errorf("column %q: %w", w.fileSchema.Field(i).Name, err)
	}
	if d.hasEmpty {
		// The dictionary's statistics missed the empty value (dict.go);
		// the page is not flushed yet (one data page per dictionary
		// chunk), so its statistics still take it.
		if bs, ok := cw.PageStatistics().(*metadata.ByteArrayStatistics); ok {
			bs.SetMinMax(pq.ByteArray{}, pq.ByteArray{})
		}
	}
	return nil
}

// dictSeeder is the part of arrow-go's dictionary encoder (an internal
// type, reached through ColumnChunkWriter.CurrentEncoder) seedDictionary
// uses.
type dictSeeder interface {
	Encoding() pq.Encoding
	NumEntries() int
	PutDictionary(arrow.Array) error
}

// seedDictionary gives the dictionary of a (a dictionary array) to cw's
// encoder before a is written. pqarrow does the same when it meets the
// first dictionary array of a column chunk, but then takes the chunk's
// statistics from the dictionary values the indices reference, found by
// hashing every index (compute.UniqueArray: 14% of the CPU of writing the
// events table). When the encoder already holds that very dictionary array
// (pointer-equal), pqarrow takes every value of it as referenced, which is
// true of a dictColumn's: it only holds values of its rows. Without the
// seeding (an arrow-go whose encoder does not match dictSeeder) the file
// is the same, only slower to write.
func seedDictionary(cw file.ColumnChunkWriter, a arrow.Array) error {
	enc, ok := cw.CurrentEncoder().(dictSeeder)
	if !ok || enc.Encoding() != pq.Encodings.PlainDict || enc.NumEntries() != 0 {
		return nil
	}
	return enc.PutDictionary(a.(*array.Dictionary).Dictionary())
}
