//go:build !unix

package walltest

import (
	"os"
	"time"
)

// lock takes the lock by creating f's sibling with O_EXCL, where flock is
// not available, waiting while another test holds it. A test killed while
// holding it leaves the sibling behind: delete it by hand.
func lock(f *os.File) (unlock func(), err error) {
	name := f.Name() + ".held"
	for {
		h, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			h.Close()
			return func() { _ = os.Remove(name) }, nil
		}
		if !os.IsExist(err) {
			return nil, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
