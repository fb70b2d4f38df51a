package httpapi

import (
	"net/http"
	"net/netip"
	"strings"

	"github.com/flagpole/flagpole/httpapi/addrgroup"
)

// clientAddr is the address a request comes from: the connection's peer,
// unless that peer is a trusted proxy: then the right-most address of
// X-Forwarded-For that is not a trusted proxy (each proxy appends the
// address it got the request from, so everything left of the first
// untrusted hop may be made up by the client). An entry that is not an
// address ends the walk at the hop that forwarded it. Gin's ClientIP is
// not used: it trusts every X-Forwarded-For unless told otherwise.
func (a *API) clientAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	addr := ap.Addr().Unmap()
	proxies := a.trustedProxies()
	if len(proxies) == 0 || !proxies.Contains(addr) {
		return addr
	}
	vals := r.Header["X-Forwarded-For"]
	for i := len(vals) - 1; i >= 0; i-- {
		v := vals[i]
		for v != "" {
			part := v
			if j := strings.LastIndexByte(v, ','); j >= 0 {
				part, v = v[j+1:], v[:j]
			} else {
				v = ""
			}
			hop, ok := parseHop(strings.TrimSpace(part))
			if !ok {
				return addr
			}
			if !proxies.Contains(hop) {
				return hop
			}
			addr = hop
		}
	}
	return addr
}

// parseHop reads one X-Forwarded-For entry: an address, possibly with a
// port ("192.0.2.1:4711", "[2001:db8::1]:4711").
func parseHop(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

// limitAddr is the address a client is limited by: its address group,
// an IPv4 address or the /64 of an IPv6 address (one host usually holds a
// whole /64), the same group max_conns_per_ip counts connections by.
func limitAddr(addr netip.Addr) netip.Addr { return addrgroup.Of(addr) }
