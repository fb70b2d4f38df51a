package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
)

// TestHealthcheck: healthcheck passes against a ready serve, reached on
// loopback when the address is every interface's; from SIGTERM on it
// fails with the reason, while --live (the process answers) still passes;
// with nothing listening it fails.
func TestHealthcheck(t *testing.T) {
	r := newLiveRig(t, loader.SQLite)
	s, sigs := startSignalled(t, false, "--db", r.dbURL, "--addr", "127.0.0.1:0", "--shutdown-delay", "10m",
		"--access-log=false", "--snapshot-daily=false")
	base := listenAddr(t, s)
	waitReady(t, s, base)
	addr := strings.TrimPrefix(base, "http://")
	port := addr[strings.LastIndexByte(addr, ':'):]
	for _, args := range [][]string{{"--addr", addr}, {"--addr", "0.0.0.0" + port}, {"--addr", ":" + port[1:]}, {"--live", "--addr", addr}} {
		if res := runCLI(t, noEnv, nil, append([]string{"healthcheck"}, args...)...); res.err != nil {
			t.Errorf("healthcheck %v of a ready server: %v", args, res.err)
		}
	}
	if res := runCLI(t, mapEnv(map[string]string{"FLAGPOLE_ADDR": "0.0.0.0" + port}), nil, "healthcheck"); res.err != nil {
		t.Errorf("healthcheck with FLAGPOLE_ADDR of every interface: %v", res.err)
	}
	sigs <- syscall.SIGTERM
	until(t, "/readyz answers 503", 10*time.Second, func() bool { st, _ := readyReason(t, base); return st == 503 })
	if msg := mustFail(t, noEnv, nil, "healthcheck", "--addr", addr); !strings.Contains(msg, "answered 503: shutting down") {
		t.Errorf("healthcheck of a draining server: %q, want the 503 and its reason", msg)
	}
	if res := runCLI(t, noEnv, nil, "healthcheck", "--live", "--addr", addr); res.err != nil {
		t.Errorf("healthcheck --live of a draining server: %v", res.err)
	}
	if msg := mustFail(t, noEnv, nil, "healthcheck", "--addr", freeAddr(t)); !strings.Contains(msg, "connection refused") {
		t.Errorf("healthcheck with nothing listening: %q", msg)
	}
}

// TestLocalAddr: an address of every interface is reached on loopback.
func TestLocalAddr(t *testing.T) {
	for in, want := range map[string]string{"0.0.0.0:8080": "127.0.0.1:8080", ":8080": "127.0.0.1:8080",
		"[::]:8080": "[::1]:8080", "10.0.0.5:8080": "10.0.0.5:8080", "localhost:1": "localhost:1"} {
		if got := localAddr(in); got != want {
			t.Errorf("localAddr(%q) = %q, want %q", in, got, want)
		}
	}
}
