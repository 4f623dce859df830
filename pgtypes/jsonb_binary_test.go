package pgtypes

import "testing"

// TestJSONBBinaryNormalized: the binary form of jsonb is version 1 and the
// normalized text, as jsonb_send sends it (asyncpg reads jsonb in binary):
// the engine's compact text is not sent as is.
func TestJSONBBinaryNormalized(t *testing.T) {
	got, err := AppendBinary(nil, OIDJSONB, -1, `{"b":2,"a":[1,2]}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "\x01" + `{"a": [1, 2], "b": 2}`; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
