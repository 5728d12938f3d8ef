package gateway

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain stops what the tests started: a PostgreSQL server and a built
// idem binary, each made on first use.
//
// The PostgreSQL tests start their own server: an initdb in a temporary
// directory, listening on 127.0.0.1 only, stopped when the tests end. As
// root, it runs as nobody, since postgres refuses to run as root.

var pg struct {
	once sync.Once
	url  string // the admin connection, to the postgres database
	err  error
	skip string
	stop func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pg.stop != nil {
		pg.stop()
	}
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

var built struct {
	once sync.Once
	path string
	err  error
}

// IdemBinary builds idem once for the tests that run it as a child
// process, and returns its path; TestMain removes it.
func IdemBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "idem-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "idem")
		build := exec.Command("go", "build", "-o", built.path, "./cmd/idem")
		build.Dir = ".."
		if out, err := build.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// pgBinDir finds initdb and postgres: on PATH, or in Debian's versioned
// directories.
func pgBinDir() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "postgres")); err == nil {
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	return ""
}

// PostgresURL returns the URL of a new, empty database on the test
// server, starting the server on first use. It skips the test when
// PostgreSQL is not installed, and fails it under CI.
func PostgresURL(t testing.TB) string {
	t.Helper()
	pg.once.Do(startPostgres)
	if pg.skip != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s; .ci/gateway.sh installs it and CI must not skip this test", pg.skip)
		}
		t.Skip(pg.skip)
	}
	if pg.err != nil {
		t.Fatal(pg.err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", pg.url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	return strings.Replace(pg.url, "/postgres?", "/"+name+"?", 1)
}

func startPostgres() {
	bin := pgBinDir()
	if bin == "" {
		pg.skip = "PostgreSQL is not installed (apt-get install postgresql)"
		return
	}
	dir, err := os.MkdirTemp("", "idem-pg-")
	if err != nil {
		pg.err = err
		return
	}
	data := filepath.Join(dir, "data")
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534} // nobody
		os.Chmod(dir, 0o755)
		os.Mkdir(data, 0o700)
		os.Chown(data, 65534, 65534)
	}
	run := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(filepath.Join(bin, name), args...)
		c.Dir = dir
		c.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
		return c
	}
	if out, err := run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		pg.err = fmt.Errorf("initdb: %v\n%s", err, out)
		os.RemoveAll(dir)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		pg.err = err
		return
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	srv := run("postgres", "-D", data, "-p", fmt.Sprint(port), "-k", data, "-c", "listen_addresses=127.0.0.1",
		"-c", "max_connections=300", "-c", "shared_buffers=32MB")
	logf, _ := os.Create(filepath.Join(dir, "postgres.log"))
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		pg.err = fmt.Errorf("postgres: %w", err)
		return
	}
	pg.stop = func() {
		srv.Process.Signal(syscall.SIGINT) // fast shutdown
		done := make(chan struct{})
		go func() { srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			srv.Process.Kill()
		}
		logf.Close()
		os.RemoveAll(dir)
	}
	pg.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	db, _ := sql.Open("pgx", pg.url)
	defer db.Close()
	for i := 0; i < 150; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err = db.PingContext(ctx)
		cancel()
		if err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
	pg.err = fmt.Errorf("postgres did not start: %v\n%s", err, log)
}
