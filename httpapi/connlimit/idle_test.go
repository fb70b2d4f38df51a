package connlimit

import (
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"testing"
)

// TestIdleListModel: the idle list, and each address group's, follow the
// connections' states in order (the longest idle first) through random
// turns, against a slice, and a request's turn from idle to active and
// back allocates nothing.
func TestIdleListModel(t *testing.T) {
	l := &Listener{opt: Options{Max: 1000}, byAddr: map[netip.Addr]*addrConns{}, conns: map[*conn]struct{}{}}
	const n = 12
	conns := make([]*conn, n)
	var model []*conn // idle, the longest first
	for i := range conns {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		c, _, ok := l.admit(a, netip.AddrFrom4([4]byte{10, 0, 0, byte(i % 3)}))
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
		checkIdle(t, step, &l.idle, model)
		for g, ac := range l.byAddr {
			checkIdle(t, step, &ac.idle, slices.DeleteFunc(slices.Clone(model), func(x *conn) bool { return x.group.key != g }))
			if n := counted(conns, closed, g); ac.n != n {
				t.Fatalf("step %d: group %v counts %d, %d open", step, g, ac.n, n)
			}
		}
		if l.Stats().Idle != len(model) {
			t.Fatalf("step %d: Stats().Idle %d, want %d", step, l.Stats().Idle, len(model))
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

// checkIdle fails t unless the idle list holds model, in order.
func checkIdle(t *testing.T, step int, l *idleList, model []*conn) {
	t.Helper()
	var got []*conn
	for x := l.front(); x != nil; x = x.links[l.k].next {
		got = append(got, x)
	}
	if !slices.Equal(got, model) || l.n != len(model) {
		t.Fatalf("step %d: idle list %d of %d (n %d), want %d", step, l.k, len(got), l.n, len(model))
	}
	if len(model) > 0 && l.tail != model[len(model)-1] {
		t.Fatalf("step %d: the tail of idle list %d is not the last idle", step, l.k)
	}
	for i := len(model) - 1; i > 0; i-- {
		if model[i].links[l.k].prev != model[i-1] {
			t.Fatalf("step %d: idle list %d linked back wrong", step, l.k)
		}
	}
}

// counted is the number of conns of group g not closed.
func counted(conns []*conn, closed []bool, g netip.Addr) int {
	n := 0
	for i, c := range conns {
		if !closed[i] && c.group.key == g {
			n++
		}
	}
	return n
}
