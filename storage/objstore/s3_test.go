package objstore_test

import (
	"testing"

	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/objstore/objstoretest"
)

// The contract against a real S3-compatible server (versitygw v1.8.0).
func TestS3Contract(t *testing.T) {
	gw := objstoretest.StartVersityGW(t)
	runContract(t, func(t *testing.T) objstore.Store { return gw.NewBucket(t, "wh/x") })
	t.Run("URI", func(t *testing.T) {
		s := gw.NewBucket(t, "wh/x")
		if got, want := s.URI("t/data/a.parquet"), "s3://"+s.Bucket()+"/wh/x/t/data/a.parquet"; got != want {
			t.Fatalf("URI = %q, want %q", got, want)
		}
		s2 := gw.NewBucket(t, "")
		if got, want := s2.URI("k"), "s3://"+s2.Bucket()+"/k"; got != want {
			t.Fatalf("URI = %q, want %q", got, want)
		}
	})
}

func TestParseURI(t *testing.T) {
	c, err := objstore.ParseURI("s3://bucket/some/prefix/")
	if err != nil || c.Bucket != "bucket" || c.Prefix != "some/prefix" {
		t.Fatalf("ParseURI = %+v, %v", c, err)
	}
	c, err = objstore.ParseURI("s3://bucket")
	if err != nil || c.Bucket != "bucket" || c.Prefix != "" {
		t.Fatalf("ParseURI = %+v, %v", c, err)
	}
	for _, bad := range []string{"file:///x", "s3:///nobucket", "bucket/x"} {
		if _, err := objstore.ParseURI(bad); err == nil {
			t.Errorf("ParseURI(%q) succeeded", bad)
		}
	}
}
