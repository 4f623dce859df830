package parquet

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// IntervalWidth is the byte width of an encoded interval.
const IntervalWidth = 16

// EncodeInterval is the Parquet (and Iceberg fixed[16]) encoding of an
// interval: months int32, days int32, nanoseconds int64, each little-endian,
// in that order. Part of the on-disk format.
func EncodeInterval(v arrow.MonthDayNanoInterval) [IntervalWidth]byte {
	var b [IntervalWidth]byte
	binary.LittleEndian.PutUint32(b[0:], uint32(v.Months))
	binary.LittleEndian.PutUint32(b[4:], uint32(v.Days))
	binary.LittleEndian.PutUint64(b[8:], uint64(v.Nanoseconds))
	return b
}

// DecodeInterval is the inverse of EncodeInterval.
func DecodeInterval(b []byte) (arrow.MonthDayNanoInterval, error) {
	if len(b) != IntervalWidth {
		return arrow.MonthDayNanoInterval{}, fmt.Errorf("parquet: interval: %d bytes, want %d", len(b), IntervalWidth)
	}
	return arrow.MonthDayNanoInterval{
		Months:      int32(binary.LittleEndian.Uint32(b[0:])),
		Days:        int32(binary.LittleEndian.Uint32(b[4:])),
		Nanoseconds: int64(binary.LittleEndian.Uint64(b[8:])),
	}, nil
}

func intervalToFixed(a *array.MonthDayNanoInterval, mem memory.Allocator) arrow.Array {
	bld := array.NewFixedSizeBinaryBuilder(mem, &arrow.FixedSizeBinaryType{ByteWidth: IntervalWidth})
	defer bld.Release()
	bld.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			bld.AppendNull()
			continue
		}
		e := EncodeInterval(a.Value(i))
		bld.Append(e[:])
	}
	return bld.NewArray()
}

func fixedToInterval(a *array.FixedSizeBinary, mem memory.Allocator) (arrow.Array, error) {
	bld := array.NewMonthDayNanoIntervalBuilder(mem)
	defer bld.Release()
	bld.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			bld.AppendNull()
			continue
		}
		v, err := DecodeInterval(a.Value(i))
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		bld.Append(v)
	}
	return bld.NewArray(), nil
}
