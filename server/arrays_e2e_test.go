package server

import (
	"context"
	"fmt"
	"testing"
)

// TestArrayParameters: pgx sends a Go slice for ANY($1) (binary array of
// the type ParameterDescription gives); the server types $1 as the array
// of the left operand's type, like PostgreSQL, and answers.
func TestArrayParameters(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE ap (id bigint, n int, s text)")
	mustExec(t, c, "INSERT INTO ap VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c'), (4, 40, NULL)")
	cases := []struct {
		q    string
		arg  any
		want string
	}{
		{"SELECT string_agg(id::text, ',' ORDER BY id) FROM ap WHERE id = ANY($1)", []int64{1, 3, 9}, "1,3"},
		{"SELECT string_agg(id::text, ',' ORDER BY id) FROM ap WHERE n = ANY($1)", []int32{20, 40}, "2,4"},
		{"SELECT string_agg(id::text, ',' ORDER BY id) FROM ap WHERE s = ANY($1)", []string{"a", "c", "z"}, "1,3"},
		{"SELECT string_agg(id::text, ',' ORDER BY id) FROM ap WHERE s <> ALL($1)", []string{"a"}, "2,3"},
		{"SELECT count(*)::text FROM ap WHERE id = ANY($1)", []int64{}, "0"},
	}
	for _, cs := range cases {
		var got *string
		if err := c.QueryRow(ctx, cs.q, cs.arg).Scan(&got); err != nil {
			t.Errorf("%s with %v: %v", cs.q, cs.arg, err)
			continue
		}
		if got == nil || *got != cs.want {
			t.Errorf("%s with %v: %v, want %s", cs.q, cs.arg, deref(got), cs.want)
		}
	}
	// The parameter's type is the array type, as PostgreSQL describes it.
	sd, err := c.Prepare(ctx, "anyp", "SELECT id FROM ap WHERE id = ANY($1)")
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.ParamOIDs) != 1 || sd.ParamOIDs[0] != 1016 {
		t.Errorf("ParamOIDs %v, want [1016] (int8[])", sd.ParamOIDs)
	}
	// An array result comes back as a Go slice.
	var arr []int32
	if err := c.QueryRow(ctx, "SELECT '{1,2,3}'::int[]").Scan(&arr); err != nil || fmt.Sprint(arr) != "[1 2 3]" {
		t.Errorf("'{1,2,3}'::int[] -> %v, %v", arr, err)
	}
}

func deref(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}
