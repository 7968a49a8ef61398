//go:build !linux

package transport

import "net"

// rawUDP returns c: raw system calls for UDP are for Linux (see
// rawudp_linux.go).
func rawUDP(c *net.UDPConn) net.PacketConn { return c }
