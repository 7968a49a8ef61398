package transport

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"
)

// MaxHashValidity is the longest validity a certificate pinned by hash
// may have: browsers accept serverCertificateHashes only for certificates
// valid for less than two weeks (W3C WebTransport, section 4.3,
// "verify a certificate hash").
const MaxHashValidity = 14 * 24 * time.Hour

// DefaultValidity is a generated certificate's validity: under
// MaxHashValidity with a day to spare for clock skew.
const DefaultValidity = 13 * 24 * time.Hour

// Certificate is the TLS certificate a Web server presents, with the
// SHA-256 of its DER encoding: the hash a page passes to WebTransport's
// serverCertificateHashes and a Go client pins.
type Certificate struct {
	TLS    tls.Certificate
	SHA256 [sha256.Size]byte
}

// HashHex is the certificate's SHA-256 in lower-case hex.
func (c *Certificate) HashHex() string { return hex.EncodeToString(c.SHA256[:]) }

// SelfSigned generates an ECDSA P-256 certificate for hosts (names or IP
// addresses; 127.0.0.1, ::1 and localhost when none), valid from an hour
// ago for validity (DefaultValidity if 0), which must stay under
// MaxHashValidity for browsers to pin it.
func SelfSigned(validity time.Duration, hosts ...string) (*Certificate, error) {
	if validity == 0 {
		validity = DefaultValidity
	}
	if validity < 0 || validity >= MaxHashValidity {
		return nil, fmt.Errorf("transport: certificate validity %v: want more than 0 and less than %v", validity, MaxHashValidity)
	}
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1", "::1", "localhost"}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("transport: certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("transport: certificate serial: %w", err)
	}
	notBefore := time.Now().Add(-time.Hour).Truncate(time.Second)
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "lagkit"},
		NotBefore:             notBefore,
		NotAfter:              notBefore.Add(validity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("transport: create certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("transport: parse generated certificate: %w", err)
	}
	return &Certificate{
		TLS:    tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf},
		SHA256: sha256.Sum256(der),
	}, nil
}

// WritePEM writes the certificate and its key as PEM files, for a
// process given --cert and --key (the key's file mode 0600).
func (c *Certificate) WritePEM(certFile, keyFile string) error {
	var cb bytes.Buffer
	for _, der := range c.TLS.Certificate {
		if err := pem.Encode(&cb, &pem.Block{Type: "CERTIFICATE", Bytes: der}); err != nil {
			return err
		}
	}
	key, err := x509.MarshalPKCS8PrivateKey(c.TLS.PrivateKey)
	if err != nil {
		return fmt.Errorf("transport: certificate key: %w", err)
	}
	if err := os.WriteFile(certFile, cb.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600)
}

// LoadCertificate reads a PEM certificate chain and its key, such as a
// real certificate for a public host name.
func LoadCertificate(certFile, keyFile string) (*Certificate, error) {
	c, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("transport: load certificate %s, key %s: %w", certFile, keyFile, err)
	}
	return &Certificate{TLS: c, SHA256: sha256.Sum256(c.Certificate[0])}, nil
}

// ClientTLS is how a Go client checks a server's certificate.
type ClientTLS struct {
	// CertHash pins the server certificate's SHA-256 (hex), as browsers
	// do with serverCertificateHashes: other certificates are refused,
	// and no CA is consulted.
	CertHash string
	// InsecureSkipVerify accepts any certificate: for tests only.
	InsecureSkipVerify bool
	// Config, if set, is used as is (CA verification).
	Config *tls.Config
}

// TLSConfig is the client's TLS configuration for c, for an HTTPS
// client speaking to the same server as its sessions.
func (c ClientTLS) TLSConfig() (*tls.Config, error) { return c.config() }

// config builds the tls.Config for c.
func (c ClientTLS) config() (*tls.Config, error) {
	switch {
	case c.Config != nil:
		return c.Config.Clone(), nil
	case c.InsecureSkipVerify:
		return &tls.Config{InsecureSkipVerify: true}, nil
	case c.CertHash == "":
		return &tls.Config{}, nil
	}
	want, err := hex.DecodeString(c.CertHash)
	if err != nil || len(want) != sha256.Size {
		return nil, fmt.Errorf("transport: certificate hash %q: want %d bytes in hex", c.CertHash, sha256.Size)
	}
	return &tls.Config{
		// The pin replaces chain verification, which a self-signed
		// certificate cannot pass.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("transport: server sent no certificate")
			}
			leaf := cs.PeerCertificates[0]
			if got := sha256.Sum256(leaf.Raw); !bytes.Equal(got[:], want) {
				return fmt.Errorf("transport: server certificate hash %x, want %x", got, want)
			}
			if now := time.Now(); now.Before(leaf.NotBefore) || now.After(leaf.NotAfter) {
				return fmt.Errorf("transport: server certificate valid %v to %v, not now", leaf.NotBefore, leaf.NotAfter)
			}
			return nil
		},
	}, nil
}

// serverTLS is the server side's TLS configuration for cert.
func serverTLS(cert *Certificate) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{cert.TLS}, MinVersion: tls.VersionTLS12}
}
