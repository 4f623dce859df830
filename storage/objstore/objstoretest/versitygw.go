// Package objstoretest starts real S3-compatible servers for tests of any
// package that uses objstore.
package objstoretest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// InstallCommand installs the server these helpers run.
const InstallCommand = "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// Credentials of the test server.
const (
	AccessKey = "bsdbtestkey"
	SecretKey = "bsdbtestsecret0123456789"
)

// VersityGW is a running versitygw server.
type VersityGW struct {
	Endpoint string // http://127.0.0.1:port
}

var bucketSeq atomic.Int64

// StartVersityGW starts versitygw (POSIX backend in a temp dir) on a free
// 127.0.0.1 port, stopped at the end of the test. Without the binary (on
// PATH or in $GOPATH/bin) the test is skipped, or fails when
// BSDB_REQUIRE_S3=1 (CI).
func StartVersityGW(t testing.TB) *VersityGW {
	t.Helper()
	bin, err := exec.LookPath("versitygw")
	if err != nil {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, _ := os.UserHomeDir()
			gopath = filepath.Join(home, "go")
		}
		cand := filepath.Join(gopath, "bin", "versitygw")
		if _, serr := os.Stat(cand); serr == nil {
			bin, err = cand, nil
		}
	}
	if err != nil {
		msg := "versitygw not found; install it with: " + InstallCommand
		if os.Getenv("BSDB_REQUIRE_S3") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (set BSDB_REQUIRE_S3=1 to make this a failure)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--port", addr, "posix", t.TempDir())
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+AccessKey, "ROOT_SECRET_KEY="+SecretKey)
	logPath := filepath.Join(t.TempDir(), "versitygw.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); logf.Close() })
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			t.Fatalf("versitygw did not start on %s:\n%s", addr, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return &VersityGW{Endpoint: "http://" + addr}
}

// NewBucket creates a fresh bucket and returns a store on it under prefix.
func (g *VersityGW) NewBucket(t testing.TB, prefix string) *objstore.S3 {
	t.Helper()
	ctx := context.Background()
	bucket := fmt.Sprintf("bsdb-test-%d", bucketSeq.Add(1))
	s, err := objstore.NewS3(ctx, objstore.S3Config{
		Endpoint: g.Endpoint, Region: "us-east-1", Bucket: bucket, Prefix: prefix,
		AccessKey: AccessKey, SecretKey: SecretKey, PathStyle: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
	return s
}
