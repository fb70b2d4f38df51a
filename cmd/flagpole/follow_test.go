package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi/client"
	"github.com/flagpole/flagpole/loader"
)

// goFollower follows base's stream of slug with the Go package's Follow
// and prints each event as a line, as the TypeScript example does.
func goFollower(t *testing.T, base, key, slug string) <-chan string {
	t.Helper()
	c, err := client.NewClient(base, client.WithBearerKey(key))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	lines := make(chan string, 256)
	done := make(chan error, 1)
	go func() {
		defer close(lines)
		done <- c.Follow(ctx, &client.StreamVotesParams{Slug: &slug}, func(ev client.StreamEvent) error {
			switch ev.Type {
			case client.EventVotes:
				for _, f := range ev.Votes.Flags {
					lines <- fmt.Sprintf("votes %s red %d green %d", f.Slug, f.Votes.Red, f.Votes.Green)
				}
			case client.EventEnd:
				lines <- "end " + string(ev.End.Reason)
			case client.EventReady:
				lines <- "ready " + ev.ID
			default:
				lines <- ev.Type
			}
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Follow returned %v, want context.Canceled", err)
		}
	})
	return lines
}

// tsFollower runs the TypeScript follow example on base's stream of slug
// and hands over the lines it prints.
func tsFollower(t *testing.T, base, key, slug string) <-chan string {
	t.Helper()
	node, dir := tsExample(t)
	cmd := exec.Command(node, "dist/follow-example.js", "--url", base, slug)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FLAGPOLE_KEY="+key)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt) // it stops following and exits 0
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		select {
		case err := <-waited:
			if err != nil {
				t.Errorf("the TypeScript follower exited with %v\n%s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("the TypeScript follower did not stop within 10 s of SIGINT\n%s", stderr.String())
		}
	})
	return lineReader(stdout)
}

// Following is as easy as a call, in Go (client.Follow) and in TypeScript
// (follow.ts, fetch and a streamed body), across a restart of the server:
// each follower sees a vote, the end of the stream when the server stops,
// reconnects by itself once the server is back on its address, is told to
// resync (the new process does not know the old one's event ids), and
// sees the next vote.
func TestFollowAcrossRestart(t *testing.T) {
	t.Parallel()
	r := newLiveRig(t, loader.SQLite)
	args := []string{"--db", r.dbURL, "--refresh", "@every 1h", "--access-log=false", "--snapshot-daily=false"}
	s := startServe(t, noEnv, append([]string{"--addr", "127.0.0.1:0"}, args...)...)
	base := listenAddr(t, s)
	waitReady(t, s, base)
	id, slug := r.anyFlag(t)
	red := r.redOf(t, base, slug)

	followers := map[string]<-chan string{"Go": goFollower(t, base, r.key, slug)}
	if _, err := exec.LookPath("node"); err == nil || os.Getenv("CI") == "true" {
		followers["TypeScript"] = tsFollower(t, base, r.key, slug)
	} else {
		t.Log("node is not on PATH: the TypeScript follower is left out")
	}
	expectAll := func(prefix string) {
		t.Helper()
		for who, lines := range followers {
			expectLine(t, who+" follower", lines, prefix, 30*time.Second)
		}
	}
	expectAll("ready ")
	r.vote(t, id)
	expectAll(fmt.Sprintf("votes %s red %d ", slug, red+1))

	if err := s.stop(t); err != nil {
		t.Fatalf("serve returned %v", err)
	}
	expectAll("end shutdown")
	again := startServe(t, noEnv, append([]string{"--addr", strings.TrimPrefix(base, "http://")}, args...)...)
	waitReady(t, again, base)
	expectAll("resync")
	expectAll("ready ")
	r.vote(t, id)
	expectAll(fmt.Sprintf("votes %s red %d ", slug, red+2))
}
