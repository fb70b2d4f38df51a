// Package addrgroup says which clients count as one for the limits on
// client addresses: the keyless request limit and the cap on connections
// per address.
package addrgroup

import "net/netip"

// Of is the address group of a client at addr: an IPv4 address (an
// IPv4-mapped IPv6 address counts as the IPv4 one), or the /64 of an
// IPv6 address, named by its first address, since one host is usually
// given a whole /64. The zero Addr is its own group.
func Of(addr netip.Addr) netip.Addr {
	addr = addr.Unmap()
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.Addr()
	}
	return addr
}
