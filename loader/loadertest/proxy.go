package loadertest

import (
	"bytes"
	"net"
	"slices"
	"sync"
	"testing"
)

// Proxy is a TCP proxy a test puts between a client and a server, to cut
// the connection, or to stall it the way a network partition or a frozen
// host does, without touching the server itself.
type Proxy struct {
	ln      net.Listener
	target  string
	mu      sync.Mutex
	up      bool
	stalled bool     // connections are accepted and nothing is forwarded
	trigger [][]byte // stall everything once a client sends one of these
	conns   map[net.Conn]bool
	held    []net.Conn // connections that stalled: open, silent, for good
	// answered holds the clients whose server sent something since the
	// client last did; turns counts the times such a client spoke again.
	answered map[net.Conn]bool
	turns    int
}

// NewProxy listens on a loopback port and forwards to target.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, up: true, conns: map[net.Conn]bool{}, answered: map[net.Conn]bool{}}
	go p.serve()
	tb.Cleanup(func() {
		ln.Close()
		p.Cut()
		p.mu.Lock()
		for _, c := range p.held {
			c.Close()
		}
		p.mu.Unlock()
	})
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = false
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]bool{}
}

// Stall stops forwarding: the open connections stay open and silent for
// good, and new ones are accepted and then never answered, until Restore.
// Neither side is told anything; only a deadline on the client notices.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stalled = true
}

// StallOn stalls everything, as Stall does, at the moment a client sends
// bytes containing one of patterns (that chunk is not forwarded): the
// partition strikes in the middle of a chosen query.
func (p *Proxy) StallOn(patterns ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trigger = nil
	for _, pt := range patterns {
		p.trigger = append(p.trigger, []byte(pt))
	}
}

// Stalled reports whether the proxy is stalling.
func (p *Proxy) Stalled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stalled
}

// Restore lets new connections through again. Connections that stalled
// stay silent: like a TCP connection across a partition to a host that
// has since restarted, they never answer again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.up, p.stalled, p.trigger = true, false, nil
	p.mu.Unlock()
}

// Turns is the number of round trips the clients made: the times one
// sent something after its server had answered it (a client's first
// message counts too; bytes a side sends in several pieces count once).
func (p *Proxy) Turns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.turns
}

// Held is the number of connections the proxy holds silent.
func (p *Proxy) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.held)
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		up, stalled := p.up, p.stalled
		if stalled {
			p.held = append(p.held, c)
		}
		p.mu.Unlock()
		if !up {
			c.Close()
			continue
		}
		if stalled {
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[s] = true, true
		p.answered[c] = true
		p.mu.Unlock()
		go p.pump(s, c, true, c)
		go p.pump(c, s, false, c)
	}
}

// pump copies from src to dst until either closes or the proxy stalls;
// a stalled pair is moved to held, open and silent. client is the pair's
// client side.
func (p *Proxy) pump(dst, src net.Conn, fromClient bool, client net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			if fromClient && slices.ContainsFunc(p.trigger, func(t []byte) bool { return bytes.Contains(buf[:n], t) }) {
				p.stalled = true
			}
			if p.answered[client] == fromClient {
				p.answered[client] = !fromClient
				if fromClient {
					p.turns++
				}
			}
			stalled := p.stalled
			if stalled && p.conns[src] {
				delete(p.conns, src)
				delete(p.conns, dst)
				p.held = append(p.held, src, dst)
			}
			p.mu.Unlock()
			if stalled {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				return
			}
		}
		if err != nil {
			dst.Close()
			if fromClient {
				p.mu.Lock()
				delete(p.answered, client)
				p.mu.Unlock()
			}
			return
		}
	}
}
