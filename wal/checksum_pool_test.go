package wal

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestChecksumAfterError: a checksum that fails half-way (a malformed
// array) leaves nothing behind in the pooled writer for the next one.
func TestChecksumAfterError(t *testing.T) {
	good := randomBatch(rand.New(rand.NewPCG(1, 1)), allTypesSchema, 3, 1)
	defer good.Release()
	want, err := dataCRC(good)
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.FixedWidthTypes.Boolean}}, nil)
	d := array.NewData(arrow.FixedWidthTypes.Boolean, 100, []*memory.Buffer{nil, memory.NewBufferBytes(make([]byte, 1))}, nil, 0, 0)
	col := array.MakeFromData(d)
	d.Release()
	bad := array.NewRecordBatch(sc, []arrow.Array{col}, 100)
	col.Release()
	defer bad.Release()
	for i := 0; i < 100; i++ {
		if _, err := dataCRC(bad); err == nil {
			t.Fatal("a bitmap shorter than the array was accepted")
		}
		if got, err := dataCRC(good); err != nil || got != want {
			t.Fatalf("after a failed checksum: %08x, %v; want %08x", got, err, want)
		}
	}
}
