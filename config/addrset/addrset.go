// Package addrset is a set of addresses and networks as a setting names
// them (trusted_proxies): config parses it once, the API and its listener
// match client addresses against it.
package addrset

import (
	"fmt"
	"net/netip"
	"strings"
)

// Set is a list of networks; a single address is a network of one.
type Set []netip.Prefix

// Parse reads CIDRs or single addresses (10.0.0.0/8, 192.0.2.7,
// 2001:db8::/32); empty entries are skipped. An IPv4-mapped IPv6 address
// counts as the IPv4 one.
func Parse(list []string) (Set, error) {
	var out Set
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a CIDR", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// Contains reports whether addr is in one of the set's networks.
func (s Set) Contains(addr netip.Addr) bool {
	for _, p := range s {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
