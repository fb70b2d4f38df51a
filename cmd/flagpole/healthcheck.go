package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/flagpole/flagpole/config"
)

// runHealthcheck asks the serve of this configuration (its addr, on this
// host) whether it is ready (/readyz) or, with --live, whether it answers
// at all (/healthz), and fails unless it answers 200: a container's
// HEALTHCHECK, where the image has no curl.
func runHealthcheck(ctx context.Context, args []string, stdout io.Writer, getenv env) error {
	fs := newFlagSet("healthcheck", config.Serve)
	live := fs.Bool("live", false, "ask /healthz (the process answers) instead of /readyz (it serves data)")
	timeout := fs.Duration("timeout", 2*time.Second, "how long to wait for the answer")
	cfg, err := parse(fs, args, stdout, getenv)
	if err != nil {
		return err
	}
	if err := positional(fs, 0, 0, ""); err != nil {
		return err
	}
	path := "/readyz"
	if *live {
		path = "/healthz"
	}
	url := "http://" + localAddr(cfg.Addr) + path
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	var why struct {
		Reason string `json:"reason"`
	}
	json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&why)
	if why.Reason == "" {
		why.Reason = http.StatusText(resp.StatusCode)
	}
	return fmt.Errorf("healthcheck: %s answered %d: %s", url, resp.StatusCode, why.Reason)
}

// localAddr is the address on this host of a listen address: an
// unspecified host (0.0.0.0, ::, none) is reached on loopback.
func localAddr(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return net.JoinHostPort(host, port)
}
