package loadertest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // the cluster's own connections
)

// Cluster is a PostgreSQL primary and a streaming replica of it, two
// servers the test starts in a temporary directory (initdb, then
// pg_basebackup -R), as an operator runs them: the replica replays the
// primary's WAL, read-only, with a lag the test may set. Both serve the
// database "flagpole"; the superuser is postgres, trusted on 127.0.0.1.
type Cluster struct {
	Primary, Replica string // URLs of the database on each server

	dir, bin string
	ports    [2]int
}

// ClusterOptions tune StartCluster.
type ClusterOptions struct {
	// ApplyDelay is the replica's recovery_min_apply_delay: it applies
	// each commit this long after the primary made it.
	ApplyDelay time.Duration
}

// StartCluster starts a primary and its replica, and stops both when the
// test ends. It needs PostgreSQL's server programs (Debian's postgresql
// package); the test skips without them, or fails under CI=true. Run as
// root, the servers run as the user postgres.
func StartCluster(tb testing.TB, opt ClusterOptions) *Cluster {
	tb.Helper()
	if ServerBin() == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal("CI=true but PostgreSQL's server programs (initdb, pg_ctl, pg_basebackup) are not installed")
		}
		tb.Skip("PostgreSQL's server programs are not installed; skipping the replica test")
	}
	c, err := NewCluster(opt)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Stop)
	return c
}

// NewCluster starts a primary and its replica, for a program (a
// benchmark) rather than a test; Stop stops both and removes their files.
func NewCluster(opt ClusterOptions) (*Cluster, error) {
	bin := ServerBin()
	if bin == "" {
		return nil, fmt.Errorf("PostgreSQL's server programs (initdb, pg_ctl, pg_basebackup) are not installed")
	}
	dir, err := os.MkdirTemp("", "flagpole-cluster-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, bin: bin}
	if err := c.chown(dir); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.init(opt); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// Stop stops both servers at once and removes their files.
func (c *Cluster) Stop() {
	for _, d := range []string{"replica", "primary"} {
		if _, err := os.Stat(filepath.Join(c.dir, d, "postmaster.pid")); err == nil {
			c.run("pg_ctl", "-D", filepath.Join(c.dir, d), "-m", "immediate", "-w", "stop")
		}
	}
	os.RemoveAll(c.dir)
}

func (c *Cluster) init(opt ClusterOptions) error {
	for i := range c.ports {
		p, err := freePort()
		if err != nil {
			return err
		}
		c.ports[i] = p
	}
	primary := filepath.Join(c.dir, "primary")
	if out, err := c.run("initdb", "-D", primary, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if err := c.conf(primary, c.ports[0],
		"wal_level = replica", "max_wal_senders = 4", "fsync = off", "full_page_writes = off",
		"max_connections = 100", "shared_buffers = 64MB"); err != nil {
		return err
	}
	if err := c.start("primary", 0); err != nil {
		return err
	}
	c.Primary = c.url(c.ports[0])
	admin, err := sqlx.Open("postgres", c.url0(c.ports[0], "postgres"))
	if err != nil {
		return err
	}
	_, err = admin.Exec("CREATE DATABASE flagpole")
	admin.Close()
	if err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	replica := filepath.Join(c.dir, "replica")
	if out, err := c.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.ports[0]), "-U", "postgres",
		"-D", replica, "-R", "-X", "stream", "--no-sync", "--checkpoint=fast"); err != nil {
		return fmt.Errorf("pg_basebackup: %v\n%s", err, out)
	}
	lines := []string{"hot_standby = on", "hot_standby_feedback = on"}
	if opt.ApplyDelay > 0 {
		lines = append(lines, fmt.Sprintf("recovery_min_apply_delay = '%dms'", opt.ApplyDelay.Milliseconds()))
	}
	if err := c.conf(replica, c.ports[1], lines...); err != nil {
		return err
	}
	if err := c.start("replica", 1); err != nil {
		return err
	}
	c.Replica = c.url(c.ports[1])
	return nil
}

// PrimaryPort and ReplicaPort are the servers' ports on 127.0.0.1.
func (c *Cluster) PrimaryPort() int { return c.ports[0] }
func (c *Cluster) ReplicaPort() int { return c.ports[1] }

// As returns the database URL raw with its user replaced by role.
func As(raw, role string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.User = url.User(role)
	return u.String()
}

// WaitReplayed waits until the replica has replayed everything the
// primary has written so far.
func (c *Cluster) WaitReplayed(tb testing.TB) {
	tb.Helper()
	if err := c.Replayed(time.Minute); err != nil {
		tb.Fatal(err)
	}
}

// Replayed waits, at most within, until the replica has replayed
// everything the primary has written so far.
func (c *Cluster) Replayed(within time.Duration) error {
	p, err := sqlx.Open("postgres", c.Primary)
	if err != nil {
		return err
	}
	defer p.Close()
	r, err := sqlx.Open("postgres", c.Replica)
	if err != nil {
		return err
	}
	defer r.Close()
	var lsn string
	if err := p.Get(&lsn, "SELECT pg_current_wal_lsn()::text"); err != nil {
		return err
	}
	deadline := time.Now().Add(within)
	for {
		var ok bool
		if err := r.Get(&ok, "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn", lsn); err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the replica did not replay the primary's WAL within %s", within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (c *Cluster) url(port int) string { return c.url0(port, "flagpole") }

func (c *Cluster) url0(port int, db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, db)
}

// start starts a server, on another port when its own was taken
// meanwhile (the ports are picked free, then bound by the server).
func (c *Cluster) start(name string, i int) error {
	d := filepath.Join(c.dir, name)
	logFile := filepath.Join(c.dir, name+".log")
	for try := 0; ; try++ {
		out, err := c.run("pg_ctl", "-D", d, "-l", logFile, "-w", "-t", "60", "start")
		if err == nil {
			return nil
		}
		log, _ := os.ReadFile(logFile)
		if try < 5 && strings.Contains(string(log), "Address already in use") {
			p, perr := freePort()
			if perr == nil {
				c.ports[i] = p
				if c.conf(d, p) == nil {
					continue
				}
			}
		}
		return fmt.Errorf("start the %s: %v\n%s\n%s", name, err, out, log)
	}
}

// conf appends settings to a server's configuration: its port, on
// 127.0.0.1 only, its socket in the cluster's directory.
func (c *Cluster) conf(dataDir string, port int, lines ...string) error {
	f, err := os.OpenFile(filepath.Join(dataDir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	all := append([]string{"port = " + strconv.Itoa(port), "listen_addresses = '127.0.0.1'",
		"unix_socket_directories = '" + c.dir + "'"}, lines...)
	_, err = f.WriteString("\n" + strings.Join(all, "\n") + "\n")
	return err
}

// run runs one of the server's programs, as postgres when run as root.
func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prog := filepath.Join(c.bin, name)
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", prog}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, prog, args...)
	}
	cmd.Dir = c.dir
	return cmd.CombinedOutput()
}

// chown gives dir to postgres when run as root.
func (c *Cluster) chown(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("the servers run as postgres: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}

// ServerBin finds the directory of initdb, pg_ctl and pg_basebackup: on
// the PATH, or Debian's /usr/lib/postgresql/VERSION/bin (newest first).
func ServerBin() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "pg_basebackup")); err == nil {
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_basebackup")); err == nil {
			return d
		}
	}
	return ""
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
