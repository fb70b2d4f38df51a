package stream

import (
	"bufio"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ownNetwork moves the test's goroutine, locked to its thread for good,
// into a network namespace of its own with its loopback up, and returns
// a function that takes the loopback down or up again. Sockets opened by
// the goroutine are the namespace's; taking its loopback down makes the
// peer of each of their connections vanish, without a FIN or an RST, as
// a client whose network is gone. The thread, left locked, ends with the
// test. Without the privilege (root, or CAP_SYS_ADMIN) it skips the
// test, but under CI, which runs as root, fails it.
func ownNetwork(t *testing.T) func(up bool) {
	t.Helper()
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but no network namespace of the test's own: %v (run as root)", err)
		}
		t.Skipf("no network namespace of the test's own: %v (run as root)", err)
	}
	set := func(up bool) {
		t.Helper()
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		ifr, err := unix.NewIfreq("lo")
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
			t.Fatal(err)
		}
		flags := ifr.Uint16() &^ unix.IFF_UP
		if up {
			flags |= unix.IFF_UP
		}
		ifr.SetUint16(flags)
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
			t.Fatal(err)
		}
	}
	set(true)
	return set
}

// A client that vanishes without a FIN (its network gone) gives its key's
// slot and its connection back once what the stream sent has gone
// unacknowledged for AckTimeout: the heartbeat keeps data in flight and
// TCP's user timeout drops the connection. (Before, TCP's own
// retransmissions held them for some fifteen minutes.)
func TestVanishedClientGivesItsSlotBack(t *testing.T) {
	loopback := ownNetwork(t)
	h, _, _ := testHub(t, 1, Options{MaxPerKey: 1, Heartbeat: 150 * time.Millisecond, AckTimeout: time.Second})
	s, err := h.Open("k1", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	client, server := tcpPair(t, 0)
	var closed atomic.Int32
	s.Start(closeCounting{server, &closed}, false)
	r := bufio.NewReader(client)
	for line := ""; !strings.HasPrefix(line, "event: ready"); {
		if line, err = r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	loopback(false)
	waitFor(t, func() bool { return h.Len() == 0 })
	if closed.Load() == 0 {
		t.Error("the vanished client's connection is still open")
	}
	if n := h.Ended(reasonGone); n != 1 {
		t.Errorf("%d streams ended gone, want 1", n)
	}
	again, err := h.Open("k1", nil, "")
	if err != nil {
		t.Fatalf("the key's slot after its client vanished: %v", err)
	}
	again.Close()
}
