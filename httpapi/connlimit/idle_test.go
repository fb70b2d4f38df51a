package connlimit

import (
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"testing"
)

// TestIdleListModel: the idle list follows the connections' states in
// order (the longest idle first) through random turns, against a slice,
// and a request's turn from idle to active and back allocates nothing.
func TestIdleListModel(t *testing.T) {
	l := &Listener{opt: Options{Max: 1000}, byAddr: map[netip.Addr]int{}, conns: map[*conn]struct{}{}}
	const n = 12
	conns := make([]*conn, n)
	var model []*conn // idle, the longest first
	for i := range conns {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		c, _, ok := l.admit(a, netip.AddrFrom4([4]byte{10, 0, 0, byte(i)}))
		if !ok {
			t.Fatal("refused")
		}
		conns[i] = c
		model = append(model, c)
	}
	closed := make([]bool, n)
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 5000 {
		i := r.IntN(n)
		c := conns[i]
		if closed[i] {
			continue
		}
		switch s := []http.ConnState{http.StateActive, http.StateIdle, http.StateHijacked, http.StateClosed}[r.IntN(4)]; s {
		case http.StateActive, http.StateHijacked:
			l.ConnState(c, s)
			model = slices.DeleteFunc(model, func(x *conn) bool { return x == c })
		case http.StateIdle:
			l.ConnState(c, s)
			if !slices.Contains(model, c) {
				model = append(model, c)
			}
		case http.StateClosed:
			if r.IntN(400) != 0 {
				continue // keep most of them open
			}
			l.ConnState(c, s)
			closed[i] = true
			model = slices.DeleteFunc(model, func(x *conn) bool { return x == c })
		}
		var got []*conn
		for x := l.idle.front(); x != nil; x = x.next {
			got = append(got, x)
		}
		if !slices.Equal(got, model) || l.idle.n != len(model) || l.Stats().Idle != len(model) {
			t.Fatalf("step %d: idle list of %d (n %d), want %d", step, len(got), l.idle.n, len(model))
		}
		if len(model) > 0 && l.idle.tail != model[len(model)-1] {
			t.Fatalf("step %d: the tail is not the last idle", step)
		}
	}
	var c *conn
	for i, x := range conns {
		if !closed[i] {
			c = x
		}
	}
	if c == nil {
		t.Fatal("every connection closed")
	}
	if a := testing.AllocsPerRun(100, func() {
		l.ConnState(c, http.StateActive)
		l.ConnState(c, http.StateIdle)
	}); a != 0 {
		t.Errorf("%v allocations a request, want 0", a)
	}
}
