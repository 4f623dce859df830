package clients

import (
	"context"
	"crypto/tls"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/testcert"
	"github.com/bsdb/bsdb-pg/internal/testserver"
)

// TestTLSFromCommandLine: the server binary started with BSDB_TLS_CERT and
// BSDB_TLS_KEY answers SSLRequest with S and serves TLS to pgx (sslmode
// require and verify-full against the certificate) and psql, still serves
// clients that do not ask for TLS, and refuses to start with a key it
// cannot load.
func TestTLSFromCommandLine(t *testing.T) {
	dir := t.TempDir()
	cert, key := testcert.Files(t, dir)
	s := testserver.Start(t, testserver.Options{Env: []string{"BSDB_TLS_CERT=" + cert, "BSDB_TLS_KEY=" + key}})
	base := "postgres://postgres@" + s.Addr() + "/postgres?sslmode="
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range []struct {
		mode string
		tls  bool
	}{
		{"require", true},
		{"verify-full&sslrootcert=" + cert, true},
		{"disable", false},
	} {
		conn, err := pgx.Connect(ctx, base+c.mode)
		if err != nil {
			t.Fatalf("sslmode=%s: %v", c.mode, err)
		}
		_, isTLS := conn.PgConn().Conn().(*tls.Conn)
		var n int
		err = conn.QueryRow(ctx, "SELECT 41 + 1").Scan(&n)
		conn.Close(ctx)
		if err != nil || n != 42 || isTLS != c.tls {
			t.Errorf("sslmode=%s: SELECT 41 + 1 = %d (%v), TLS %v, want TLS %v", c.mode, n, err, isTLS, c.tls)
		}
	}

	psqlBin := need(t, "psql")
	out := runCmdOut(t, true, []string{"PGCONNECT_TIMEOUT=10"}, "\\conninfo\nSELECT 'tls ok' AS r;\n",
		psqlBin, "-X", "-At", "-f", "-", base+"require")
	if !strings.Contains(out, "SSL connection") || !strings.Contains(out, "tls ok") {
		t.Errorf("psql sslmode=require:\n%s", out)
	}

	// A key that cannot be loaded: the server exits with an error naming TLS.
	bin := testserver.Build(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "BSDB_DATA_DIR="+t.TempDir(), "BSDB_LISTEN=127.0.0.1:0",
		"BSDB_TLS_CERT="+cert, "BSDB_TLS_KEY="+filepath.Join(dir, "missing.key"))
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "TLS") {
		t.Errorf("start with a missing key: err %v, output:\n%s", err, msg)
	}
}
