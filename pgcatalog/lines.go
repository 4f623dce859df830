package pgcatalog

import (
	"fmt"
	"strconv"
)

// Field conversions of the generated lines (procs.go's format). A field
// that does not convert is a programming error in the generator: it
// panics with "BUG:", which the tests of every catalog catch.

func fieldU32(f string) uint32 {
	n, err := strconv.ParseUint(f, 10, 32)
	if err != nil {
		panic(fmt.Sprintf("BUG: pgcatalog: generated field %q: %v", f, err))
	}
	return uint32(n)
}

func fieldI32(f string) int32 {
	n, err := strconv.ParseInt(f, 10, 32)
	if err != nil {
		panic(fmt.Sprintf("BUG: pgcatalog: generated field %q: %v", f, err))
	}
	return int32(n)
}

func fieldI16(f string) int16 {
	n, err := strconv.ParseInt(f, 10, 16)
	if err != nil {
		panic(fmt.Sprintf("BUG: pgcatalog: generated field %q: %v", f, err))
	}
	return int16(n)
}

// fieldByte is a "char" field (one byte; "" for none).
func fieldByte(f string) byte {
	if len(f) != 1 {
		panic(fmt.Sprintf("BUG: pgcatalog: generated \"char\" field %q", f))
	}
	return f[0]
}

func fieldBool(f string) bool {
	if f != "t" && f != "f" {
		panic(fmt.Sprintf("BUG: pgcatalog: generated boolean field %q", f))
	}
	return f == "t"
}

// nullable is a text field as a relation's value: nil for NULL.
func nullable(f string) any {
	if f == nullField {
		return nil
	}
	return f
}

// fieldPtr is a nullable text field as a Go value: nil for NULL.
func fieldPtr(f string) *string {
	if f == nullField {
		return nil
	}
	return &f
}
