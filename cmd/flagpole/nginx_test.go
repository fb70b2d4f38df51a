package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// nginxConf proxies listen to the upstreams, from the address bind, and
// appends the client's address to X-Forwarded-For, as an operator's
// configuration would.
const nginxConf = `worker_processes 1;
daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  upstream flagpole {
%[2]s  }
  server {
    listen %[3]s;
    location / {
      proxy_pass http://flagpole;
      proxy_bind %[4]s;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }
}
`

// startNginx runs Debian's nginx as a child with its own prefix and
// configuration, in front of upstreams, connecting to them from bind; it
// returns its base URL. Without nginx the test skips, except under CI.
func startNginx(t *testing.T, bind string, upstreams ...string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nginx"); serr == nil {
			bin = "/usr/sbin/nginx"
		} else if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but nginx is not installed (apt-get install nginx)")
		} else {
			t.Skip("nginx is not installed")
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	var servers strings.Builder
	for _, u := range upstreams {
		fmt.Fprintf(&servers, "    server %s;\n", strings.TrimPrefix(u, "http://"))
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(nginxConf, dir, servers.String(), listen, bind)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	base := "http://" + listen
	until(t, "nginx answers", 20*time.Second, func() bool {
		resp, err := (&http.Client{Timeout: time.Second}).Get(base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return base
}

// TestNginxClientAddr puts nginx in front of two instances whose
// trusted_proxies is nginx's address: the keyless limit holds per real
// client (the address nginx appends to X-Forwarded-For), a client's own
// made-up X-Forwarded-For does not dodge it, and a valid key is never
// refused by it. The keyless limit is each instance's own (decided in
// process), so behind two instances a client gets at most twice it.
func TestNginxClientAddr(t *testing.T) {
	loadertest.OtherLoopbacks(t)
	const proxyAddr = "127.0.0.10" // nginx connects to the instances from here
	dbURL := loadertest.URL(t, loader.SQLite)
	mustRun(t, "seed", "--db", dbURL, "--flags", "20", "--users", "5", "--days", "2")
	key := strings.TrimSpace(mustRun(t, "keys", "create", "--db", dbURL, "--name", "nginx", "--limit", "1000"))
	var bases []string
	for i := 0; i < 2; i++ {
		p := startProc(t, "--db", dbURL, "--addr", "127.0.0.1:0", "--anon-rate-limit", "4",
			"--trusted-proxies", proxyAddr+"/32", "--access-log=false", "--snapshot-daily=false")
		p.wait(t)
		until(t, p.base+" ready", 60*time.Second, func() bool { s, _ := readyz(p.base); return s == 200 })
		bases = append(bases, p.base)
	}
	base := startNginx(t, proxyAddr, bases...)
	client := func(from string) *http.Client {
		return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}).DialContext}}
	}
	get := func(c *http.Client, headers ...string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+"/api/public/stats", nil)
		for _, h := range headers {
			k, v, _ := strings.Cut(h, ": ")
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	a, b := client("127.0.0.2"), client("127.0.0.3")
	counts := map[int]int{}
	for i := 0; i < 30; i++ {
		// Each request names another made-up client.
		counts[get(a, fmt.Sprintf("X-Forwarded-For: 198.51.100.%d", i))]++
	}
	if counts[401] > 8 || counts[429] < 22 || counts[401]+counts[429] != 30 {
		t.Errorf("30 keyless requests of one client with made-up X-Forwarded-For: %v; want at most 8 (4 a minute on each of 2 instances) answered, the rest 429", counts)
	}
	if st := get(b); st != 401 {
		t.Errorf("another client behind the same nginx: %d, want 401 (its own budget)", st)
	}
	for i := 0; i < 5; i++ {
		if st := get(a, "Authorization: Bearer "+key); st != 200 {
			t.Errorf("a valid key from the limited client: %d", st)
		}
	}
}

// TestNginxStream: a live stream through nginx (its default buffering on,
// as an operator's configuration has it) reaches the client event by
// event: the opening's ready event at once, and a vote written after it
// opened, with hour-long schedules, so only the database's wake-up and an
// unbuffered proxy can bring it in time.
func TestNginxStream(t *testing.T) {
	r := newLiveRig(t, loader.SQLite)
	var bases []string
	for i := 0; i < 2; i++ {
		p := startProc(t, append([]string{"--db", r.dbURL, "--addr", "127.0.0.1:0"}, hourly...)...)
		p.wait(t)
		until(t, p.base+" ready", 60*time.Second, func() bool { s, _ := readyz(p.base); return s == 200 })
		bases = append(bases, p.base)
	}
	base := startNginx(t, "127.0.0.1", bases...)
	id, slug := r.anyFlag(t)
	expect := sseLines(t, openStream(t, base, r.key, slug).Body, 10*time.Second)
	expect("event: ready")
	r.vote(t, id)
	expect("event: votes")
	if data := expect("data: "); !strings.Contains(data, `"slug":"`+slug+`"`) {
		t.Errorf("the votes event names another flag: %s", data)
	}
}
