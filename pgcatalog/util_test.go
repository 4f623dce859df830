package pgcatalog

import (
	"fmt"
	"strconv"
)

func itoa(u uint32) string { return strconv.FormatUint(uint64(u), 10) }

func fmtRows(rows [][]string) string { return fmt.Sprint(rows) }
