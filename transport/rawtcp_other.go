//go:build !linux

package transport

import "net"

// rawTCP returns l: raw system calls for TCP are for Linux (see
// rawtcp_linux.go).
func rawTCP(l net.Listener) net.Listener { return l }

// newRawTCPConn returns c.
func newRawTCPConn(c *net.TCPConn) net.Conn { return c }
