package main

import (
	"encoding/csv"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// haproxyConf balances round robin over the servers, checking GET /readyz
// of each every 500 ms (HAProxy's defaults otherwise: down after 3 failed
// checks, up after 2 good ones; a check may take 2 s on a busy machine
// before it counts as failed) and never retrying a request on another
// server: a request sent to an instance that no longer accepts fails, as
// behind a Kubernetes Service or a cloud load balancer. A second frontend
// serves HAProxy's own statistics, which say whether it holds a server up.
const haproxyConf = `global
  maxconn 512
defaults
  mode http
  retries 0
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  timeout check 2s
frontend api
  bind %[1]s
  default_backend flagpole
backend flagpole
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 500ms
%[2]slisten stats
  bind %[3]s
  stats enable
  stats uri /stats
`

// haproxy is a running HAProxy: its base URL and its statistics page.
type haproxy struct {
	base, stats string
}

// startHAProxy runs Debian's haproxy in the foreground in front of
// servers (name to host:port). Without haproxy the test skips, except
// under CI.
func startHAProxy(t *testing.T, servers map[string]string) *haproxy {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/haproxy"); serr == nil {
			bin = "/usr/sbin/haproxy"
		} else if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but haproxy is not installed (apt-get install haproxy)")
		} else {
			t.Skip("haproxy is not installed")
		}
	}
	listen, stats := freeAddr(t), freeAddr(t)
	var lines strings.Builder
	for name, addr := range servers {
		fmt.Fprintf(&lines, "  server %s %s check\n", name, addr)
	}
	conf := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(haproxyConf, listen, lines.String(), stats)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-db", "-f", conf)
	var out syncBuffer // servers going down and up: shown when the test fails
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("haproxy's log:\n%s", out.String())
		}
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	h := &haproxy{base: "http://" + listen, stats: "http://" + stats + "/stats;csv"}
	for name := range servers {
		h.waitUp(t, name)
	}
	return h
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// status is HAProxy's state of server name: UP, DOWN, "UP 1/2" (rising),
// "" when its statistics do not answer.
func (h *haproxy) status(name string) string {
	resp, err := (&http.Client{Timeout: 2 * time.Second}).Get(h.stats)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	r := csv.NewReader(resp.Body)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		return ""
	}
	col := -1
	for i, c := range rows[0] {
		if c == "status" {
			col = i
		}
	}
	for _, row := range rows[1:] {
		if len(row) > col && col >= 0 && row[0] == "flagpole" && row[1] == name {
			return row[col]
		}
	}
	return ""
}

// waitUp waits until HAProxy holds server name up.
func (h *haproxy) waitUp(t *testing.T, name string) {
	t.Helper()
	until(t, "haproxy holds "+name+" up", 30*time.Second, func() bool { return h.status(name) == "UP" })
}
